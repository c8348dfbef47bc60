import { inspect } from 'node:util';
import {
  SendMessageBatchCommand,
  type SendMessageBatchCommandInput,
  type SendMessageBatchCommandOutput,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import {
  DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POLL_JOB_SEND_CONCURRENCY } from '../../shared/polling/enqueue-poll-jobs.ts';

/** A poll job message as the planner writes it. */
interface SentJob {
  connectionId: string;
  streamIds: string[];
  dueBy: number;
}

/** The planner's Lambda timeout (infra/runtime.ts). */
const PLANNER_TIMEOUT_MS = 30_000;
/** What one SendMessageBatch costs from a Lambda in the queue's region, about. */
const SQS_CALL_MS = 20;

const saved = { ...process.env };
const documents = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);

/** The connection items of the table, by id; `nextDueAt` as the pollers last wrote it. */
let table: Map<string, { nextDueAt?: number }>;
/** Connection ids of every job enqueued, in order of acceptance. */
let enqueued: string[];
let inFlight = 0;
let peakInFlight = 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function item(id: string, nextDueAt: number | undefined): Record<string, unknown> {
  return {
    pk: 'CONNECTIONS',
    sk: id,
    id,
    enabled: true,
    createdAt: '2026-01-01T00:00:00.000Z',
    entities: ['customer', 'resource'],
    accessToken: { v: 1, wrappedKey: 'k', iv: 'i', tag: 't', ciphertext: 'c' },
    ...(nextDueAt !== undefined ? { nextDueAt } : {}),
  };
}

/** Streams noted removed, awaiting their purge (`REMOVED_STREAMS` items). */
let removedStreams: string[];

/** The connection store's paged Query, answered from `table` in id order. */
function answerQuery(input: QueryCommandInput) {
  if (input.ExpressionAttributeValues?.[':pk'] === 'REMOVED_STREAMS')
    return { Items: removedStreams.map((sk) => ({ pk: 'REMOVED_STREAMS', sk })) };
  const ids = [...table.keys()].sort();
  const after = input.ExclusiveStartKey?.sk as string | undefined;
  const start = after === undefined ? 0 : ids.findIndex((id) => id > after);
  const from = start < 0 ? ids.length : start;
  const page = ids.slice(from, from + (input.Limit ?? 500));
  const more = from + page.length < ids.length;
  return {
    Items: page.map((id) => item(id, table.get(id)?.nextDueAt)),
    ...(more ? { LastEvaluatedKey: { pk: 'CONNECTIONS', sk: page.at(-1) } } : {}),
  };
}

/** SendMessageBatch taking {@link SQS_CALL_MS}; `refuse` picks entries to fail. */
function answerSend(
  refuse: (
    body: SentJob,
    call: number,
  ) => { Code: string; SenderFault: boolean } | undefined = () => undefined,
  dieAfterCalls = Number.POSITIVE_INFINITY,
) {
  let calls = 0;
  sqs.on(SendMessageBatchCommand).callsFake(async (input: SendMessageBatchCommandInput) => {
    const call = ++calls;
    if (call > dieAfterCalls) throw new Error('Task timed out after 30.00 seconds');
    inFlight++;
    peakInFlight = Math.max(peakInFlight, inFlight);
    await sleep(SQS_CALL_MS);
    inFlight--;
    const output: Pick<SendMessageBatchCommandOutput, 'Successful' | 'Failed'> = {
      Successful: [],
      Failed: [],
    };
    for (const entry of input.Entries ?? []) {
      const body = JSON.parse(entry.MessageBody ?? '{}') as SentJob;
      const refusal = refuse(body, call);
      if (refusal) output.Failed!.push({ Id: entry.Id, Message: 'refused', ...refusal });
      else {
        enqueued.push(body.connectionId);
        output.Successful!.push({ Id: entry.Id, MessageId: 'm', MD5OfMessageBody: '' });
      }
    }
    return output;
  });
}

async function plan(container?: string): Promise<unknown> {
  // A query names a fresh container: a module of its own, which reads its environment anew.
  // (vi.resetModules would reload every module of the worker, which other files share.)
  const path = '../../functions/planner.ts';
  const { handler } = (await import(
    /* @vite-ignore */ container === undefined ? path : `${path}?${container}`
  )) as typeof import('../../functions/planner.ts');
  return handler();
}

const ids = (count: number) =>
  Array.from({ length: count }, (_, index) => `hotel-${String(index).padStart(5, '0')}`);

beforeAll(() => {
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    STATE_TABLE_NAME: 'state',
    POLL_JOB_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/poll-jobs',
  });
  delete process.env.CONNECTION_SECRET_ARNS;
});
beforeEach(() => {
  documents.reset();
  sqs.reset();
  documents.on(QueryCommand).callsFake(answerQuery);
  removedStreams = [];
  enqueued = [];
  inFlight = 0;
  peakInFlight = 0;
});
afterAll(() => {
  documents.restore();
  sqs.restore();
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

describe('functions/planner handler at scale', () => {
  it('enqueues the jobs of 10,000 due connections, sending as many batches at once as its send concurrency allows', async () => {
    const due = Date.now() - 1_000;
    table = new Map(ids(10_000).map((id) => [id, { nextDueAt: due }]));
    answerSend();

    const started = performance.now();
    const result = await plan();
    const elapsed = performance.now() - started;

    expect(result).toEqual({ enqueued: 10_000, connections: 10_000 });
    expect(new Set(enqueued).size).toBe(10_000);
    // Ten SendMessageBatch calls in flight at once: the 1,000 calls cost a hundred round trips
    // of SQS, well inside the 30 s timeout; how long the CPU takes is a benchmark's figure.
    expect(peakInFlight).toBe(POLL_JOB_SEND_CONCURRENCY);
    console.info(
      `planner: 10,000 jobs in ${Math.round(elapsed)} ms (timeout ${PLANNER_TIMEOUT_MS} ms)`,
    );
  }, 60_000);

  it('lists the connections with eventually consistent reads, half the read units of strongly consistent ones', async () => {
    const due = Date.now() - 1_000;
    table = new Map(ids(1_200).map((id) => [id, { nextDueAt: due }]));
    answerSend();

    await expect(plan()).resolves.toEqual({ enqueued: 1_200, connections: 1_200 });
    const listings = documents
      .commandCalls(QueryCommand)
      .map((call) => call.args[0].input)
      .filter((input) => input.ExpressionAttributeValues?.[':pk'] !== 'REMOVED_STREAMS');
    expect(listings.length).toBeGreaterThan(1);
    for (const input of listings) {
      expect(input.ExpressionAttributeValues).toEqual({ ':pk': 'CONNECTIONS' });
      expect(input.ConsistentRead).toBe(false);
    }
  });

  it('sends one purge job while a stream removed in the background awaits its purge, and none otherwise', async () => {
    table = new Map(ids(3).map((id) => [id, { nextDueAt: Date.now() - 1_000 }]));
    answerSend();
    const purgeJobs = () =>
      sqs
        .commandCalls(SendMessageCommand)
        .map((call) => JSON.parse(call.args[0].input.MessageBody!));

    await plan();
    expect(purgeJobs()).toEqual([]);

    removedStreams = ['hotel-00001:customer', 'hotel-00001:resource'];
    await expect(plan()).resolves.toEqual({ enqueued: 3, connections: 3 });
    expect(purgeJobs()).toEqual([{ purge: 'removed-streams' }]);
    expect(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input.QueueUrl).toBe(
      process.env.POLL_JOB_QUEUE_URL,
    );
  });

  it('sends again the entries SQS refused for a transient reason and enqueues every job', async () => {
    const due = Date.now() - 1_000;
    table = new Map(ids(100).map((id) => [id, { nextDueAt: due }]));
    // The first attempt at hotel-00005 is throttled, once, as SQS reports it in Failed[].
    let throttled = false;
    answerSend((body) => {
      if (body.connectionId !== 'hotel-00005' || throttled) return undefined;
      throttled = true;
      return { Code: 'RequestThrottled', SenderFault: true };
    });

    await expect(plan()).resolves.toEqual({ enqueued: 100, connections: 100 });
    expect([...enqueued].sort()).toEqual(ids(100));
  });

  it('still enqueues every other job when one entry is refused for good, and then fails the run', async () => {
    const due = Date.now() - 1_000;
    table = new Map(ids(100).map((id) => [id, { nextDueAt: due }]));
    answerSend((body) =>
      body.connectionId === 'hotel-00005'
        ? { Code: 'InvalidParameterValue', SenderFault: true }
        : undefined,
    );

    await expect(plan()).rejects.toThrow(/1 poll job/);
    expect([...enqueued].sort()).toEqual(ids(100).filter((id) => id !== 'hotel-00005'));
  });

  it('still sends the other batches when one whole request fails, and then fails the run naming its jobs', async () => {
    const due = Date.now() - 1_000;
    table = new Map(ids(300).map((id) => [id, { nextDueAt: due }]));
    // The second request fails whole, after the SDK's retries (a network error, a 5xx).
    answerSend((_body, call) => {
      if (call === 2) throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
      return undefined;
    });

    await expect(plan()).rejects.toThrow(/10 poll job/);
    expect(enqueued).toHaveLength(290);
  });

  it('sends first the connections a cut-short run left out, so none is left out run after run', async () => {
    const start = Date.now();
    table = new Map(ids(100).map((id) => [id, { nextDueAt: start - 60_000 }]));
    const polledAfterRun = () => {
      // The pollers poll what was enqueued and move those connections' nextDueAt on.
      for (const id of enqueued) table.set(id, { nextDueAt: Date.now() + 30_000 });
    };
    const reached = new Set<string>();

    // Each run dies (its Lambda times out) after 5 SendMessageBatch calls: 50 of 100 jobs.
    answerSend(undefined, 5);
    await expect(plan()).rejects.toThrow();
    for (const id of enqueued) reached.add(id);
    polledAfterRun();

    enqueued = [];
    sqs.reset();
    answerSend(undefined, 5);
    await expect(plan()).rejects.toThrow();
    for (const id of enqueued) reached.add(id);

    expect(reached.size).toBe(100);
  });
});

describe('functions/planner handler cut short run after run', () => {
  it('sends a connection never polled (no nextDueAt) before those polled since, so its first poll is not left out for ever', async () => {
    const start = Date.now();
    table = new Map<string, { nextDueAt?: number }>(
      ids(100).map((id) => [id, { nextDueAt: start - 60_000 }]),
    );
    table.set('hotel-new', {});
    let reached = false;
    for (let run = 0; run < 6 && !reached; run++) {
      enqueued = [];
      sqs.reset();
      // More is due each minute than a run sends: each one dies after 5 calls, 50 jobs.
      answerSend(undefined, 5);
      await expect(plan()).rejects.toThrow();
      reached = enqueued.includes('hotel-new');
      // A minute later, the connections polled are due again (just), those left out still are.
      for (const id of enqueued)
        if (id !== 'hotel-new') table.set(id, { nextDueAt: Date.now() - 1 });
    }
    expect(reached).toBe(true);
  });
});

describe('functions/planner handler when the connection listing fails', () => {
  it('still enqueues the jobs of the pages it read before the listing failed, then fails the run', async () => {
    const due = Date.now() - 1_000;
    table = new Map(ids(1_500).map((id) => [id, { nextDueAt: due }]));
    let queries = 0;
    documents.on(QueryCommand).callsFake((input: QueryCommandInput) => {
      // The third page of 500 is throttled past the SDK retries.
      if (++queries === 3) throw new Error('ProvisionedThroughputExceededException');
      return answerQuery(input);
    });
    answerSend();

    await expect(plan()).rejects.toThrow(/ProvisionedThroughputExceeded/);
    expect([...enqueued].sort()).toEqual(ids(1_000));
  });
});

/** A fake secret an AWS SDK error may carry in its fields and in its raw response. */
const FAKE_SECRET = 'fake-secret-string-0123456789';

/** An AWS SDK service error as the SDK throws it: its raw `$response` and a secret field with it. */
function sdkError(name: string, message: string): Error {
  return Object.assign(new Error(message), {
    name,
    $fault: 'server',
    $metadata: { httpStatusCode: 500, requestId: 'req-1', attempts: 3 },
    $response: { statusCode: 500, headers: {}, body: `{"SecretString":"${FAKE_SECRET}"}` },
    SecretString: FAKE_SECRET,
  });
}

/** What the planner rejects with (the test fails when it resolves instead). */
async function planFailure(): Promise<Error> {
  const thrown = await plan().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(thrown).toBeInstanceOf(Error);
  return thrown as Error;
}

/** What the Lambda runtime and a log could print of an escaped error: none holds the secret. */
function expectNoSecretIn(error: Error): void {
  expect(Object.keys(error)).not.toContain('$response');
  expect(Object.keys(error)).not.toContain('SecretString');
  for (const value of Object.values(error))
    expect(JSON.stringify(value)).not.toContain(FAKE_SECRET);
  expect(JSON.stringify(error)).not.toContain(FAKE_SECRET);
  expect(JSON.stringify(error)).not.toContain('$response');
  // Node's inspection (console.error) prints the cause chain too.
  expect(inspect(error, { depth: 10 })).not.toContain(FAKE_SECRET);
  expect(inspect(error, { depth: 10 })).not.toContain('$response');
}

describe('functions/planner handler when an AWS SDK error escapes it', () => {
  it('throws out the SQS error with its name, message and stack but without its $response or SecretString', async () => {
    table = new Map(ids(30).map((id) => [id, { nextDueAt: Date.now() - 1_000 }]));
    // Every request fails whole: the third failure stops sending and is thrown as it is.
    sqs.on(SendMessageBatchCommand).rejects(sdkError('InternalError', 'SQS is unavailable'));

    const error = await planFailure();

    expect(error.name).toBe('InternalError');
    expect(error.message).toBe('SQS is unavailable');
    expect(error.stack).toContain('SQS is unavailable');
    expectNoSecretIn(error);
  });

  it('throws out a failed listing with its cause named but without the cause $response or SecretString', async () => {
    table = new Map(ids(10).map((id) => [id, { nextDueAt: Date.now() - 1_000 }]));
    documents
      .on(QueryCommand)
      .rejects(sdkError('InternalServerError', 'DynamoDB could not answer'));
    answerSend();

    const error = await planFailure();

    expect(error.name).toBe('BridgeError');
    expect(error.message).toMatch(/DynamoDB Query on table state failed: InternalServerError/);
    const cause = error.cause as Error & { $metadata?: unknown };
    expect(cause.name).toBe('InternalServerError');
    expect(cause.message).toBe('DynamoDB could not answer');
    expect(cause.$metadata).toEqual({ httpStatusCode: 500, requestId: 'req-1', attempts: 3 });
    expectNoSecretIn(error);
  });
});

describe('functions/planner handler lookahead', () => {
  it('plans one schedule rate ahead (PLANNER_RATE), not one POLL_INTERVAL, when the two differ', async () => {
    // A fresh container: the planner reads its environment once, on its first invocation.
    Object.assign(process.env, { POLL_INTERVAL: '10m', PLANNER_RATE: '60s' });
    try {
      const now = Date.now();
      table = new Map([
        ['hotel-next-run', { nextDueAt: now + 30_000 }],
        ['hotel-later', { nextDueAt: now + 5 * 60_000 }],
      ]);
      answerSend();

      await plan('lookahead-container');

      // hotel-later is due after the next run (a minute on), which plans it then.
      expect(enqueued).toEqual(['hotel-next-run']);
    } finally {
      delete process.env.POLL_INTERVAL;
      delete process.env.PLANNER_RATE;
    }
  });
});
