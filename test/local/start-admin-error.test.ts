import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbBackfillJobStore } from '../../shared/admin/dynamodb-backfill-job-store.ts';
import { jsonReporter } from '../../shared/local/reporter.ts';
import { type RunningBridge, startBridge } from '../../shared/local/runtime.ts';
import { connectorEnvOf } from '../../shared/simulator/connector-env.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { testLocalConfig } from '../support/local-config.ts';

interface Line {
  level: string;
  message: string;
}

const { get } = DynamoDbBackfillJobStore.prototype;

describe('change-bridge start when an admin route throws something that is not an Error', () => {
  let sim: RunningSimulator;
  let dataDir: string;
  let bridge: RunningBridge;
  const lines: Line[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ seed: 8, customers: 5, rateLimit: false });
    dataDir = await mkdtemp(join(tmpdir(), 'cb-admin-error-'));
    bridge = await startBridge(testLocalConfig(dataDir, 5_000), {
      env: { ...connectorEnvOf(sim), POLL_ENTITIES: 'customer', POLL_HISTORY_START: '1d' },
      reporter: jsonReporter({
        write: (text) => {
          for (const line of text.split('\n')) lines.push(JSON.parse(line) as Line);
        },
        now: () => Date.now(),
      }),
    });
  }, 30_000);

  afterAll(async () => {
    DynamoDbBackfillJobStore.prototype.get = get;
    await bridge?.stop();
    await sim?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Reads backfill job `id` while the job store throws `thrown`: the 500 and the lines it printed. */
  async function failingRead(id: string, thrown: unknown) {
    DynamoDbBackfillJobStore.prototype.get = async () => {
      throw thrown;
    };
    const from = lines.length;
    try {
      const answer = await fetch(`${bridge.adminUrl}/backfill/${id}`, {
        signal: AbortSignal.timeout(5_000),
      });
      expect(answer.status).toBe(500);
      expect(await answer.json()).toEqual({ error: 'internal error' });
    } finally {
      DynamoDbBackfillJobStore.prototype.get = get;
    }
    return lines.slice(from).filter((line) => line.message.startsWith('admin GET'));
  }

  // Before, the line read `.message` off the thrown value: undefined and null made the reporter
  // itself throw (the router drops a failing reporter), so nothing was printed at all.
  it('prints a line for every thrown value, naming the request', async () => {
    for (const [thrown, said] of [
      [undefined, 'undefined thrown, not an Error'],
      [null, 'null thrown, not an Error'],
      ['the store is gone', 'the store is gone'],
      [42, '42 thrown, not an Error'],
      [new RangeError('out of range'), 'out of range'],
    ] as const) {
      expect(await failingRead('job_1', thrown)).toEqual([
        expect.objectContaining({ message: `admin GET /backfill/job_1 failed: ${said}` }),
      ]);
    }
  });

  it('prints what kind of object was thrown, never its contents', async () => {
    const printed = await failingRead('job_2', { accessToken: 'secret-access-token' });
    // Before: "failed: undefined", which named nothing.
    expect(printed).toEqual([
      expect.objectContaining({
        message: 'admin GET /backfill/job_2 failed: a thrown Object, not an Error',
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('secret-access-token');
  });
});
