import { inspect } from 'node:util';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** A value that must never reach a log: what an operator pasted into the wrong variable. */
const SECRET = 'tok-secret-0123456789';

/** Variables every entry point reads, valid, as infra/ sets them. */
const GOOD_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  STATE_TABLE_NAME: 'state',
  POLL_JOB_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/poll-jobs',
  DISPATCH_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/dispatch',
  EVENT_BUS_NAME: 'bus',
  POWERTOOLS_METRICS_NAMESPACE: 'ChangeBridge',
  POWERTOOLS_SERVICE_NAME: 'change-bridge',
};

const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
  vi.restoreAllMocks();
});

const context = { getRemainingTimeInMillis: () => 30_000, awsRequestId: 'req' } as Context;
const sqsEvent = { Records: [] };
const httpEvent = {
  rawPath: '/subscriptions',
  headers: {},
  requestContext: { http: { method: 'GET' } },
};

/** Each Lambda entry point, how one invocation calls it, and a variable it reads. */
const entryPoints = [
  { file: 'poller', variable: 'POLL_JOB_QUEUE_URL', invoke: [sqsEvent, context] },
  { file: 'planner', variable: 'POLL_JOB_QUEUE_URL', invoke: [] },
  { file: 'dispatcher', variable: 'WEBHOOK_ALLOW_PRIVATE', invoke: [sqsEvent, context] },
  { file: 'admin-api', variable: 'WEBHOOK_ALLOW_PRIVATE', invoke: [httpEvent] },
] as const;

type EntryModule = { handler: (...args: unknown[]) => Promise<unknown> };

/**
 * A new instance of an entry module, loaded as the Lambda runtime loads it at a cold start
 * (the files of a vitest worker share loaded modules, so each test imports its own).
 */
async function coldStart(file: string, instance: string): Promise<EntryModule> {
  const modulePath = `../../functions/${file}.ts?${instance}`;
  return (await import(/* @vite-ignore */ modulePath)) as EntryModule;
}

describe('Lambda entry points and their environment', () => {
  for (const { file, variable, invoke } of entryPoints) {
    it(`${file}: a malformed ${variable} rejects the invocation through the handler wrapper, named and sanitized`, async () => {
      Object.assign(process.env, GOOD_ENV, { [variable]: SECRET });
      // Loading the module reads no variable: a bad one cannot escape as an ImportModuleError.
      const { handler } = await coldStart(file, `bad-env-${variable}`);

      const thrown = await handler(...invoke).then(
        () => expect.unreachable('the invocation succeeded'),
        (error: unknown) => error,
      );

      expect(thrown).toBeInstanceOf(Error);
      const error = thrown as Error;
      expect(error.name).toBe('ValidationError');
      expect(error.message).toContain(variable);
      // The wrapper's copy: no field of its own (a ValidationError carries its issues), and
      // nothing of the value, whatever depth the runtime prints.
      expect(Object.keys(error)).toEqual([]);
      expect(inspect(error, { depth: null })).not.toContain(SECRET);
      expect(JSON.stringify(error)).toBe('{}');
    });
  }

  it('poller: reads its environment once, on the first invocation, and reuses it while warm', async () => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    Object.assign(process.env, GOOD_ENV);
    const { handler } = await coldStart('poller', 'warm-env');
    await expect(handler(sqsEvent, context)).resolves.toEqual({ batchItemFailures: [] });

    process.env.POLL_JOB_QUEUE_URL = SECRET;

    await expect(handler(sqsEvent, context)).resolves.toEqual({ batchItemFailures: [] });
  });
});
