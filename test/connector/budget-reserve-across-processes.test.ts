import { setMaxListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { BudgetClaim } from '../../shared/connector/budget/budget-types.ts';
import { TokenBudget } from '../../shared/connector/budget/token-budget.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { DynamoDbGrantLedger } from '../../shared/state/dynamodb-grant-ledger.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';

const TABLE = 'budget-reserve';
const LIMITS = { requests: 200, windowMs: 30_000, marginMs: 500 };
/** A poll job of one connection: 13 live streams polled every minute. */
const STREAMS = 13;
const INTERVAL_MS = 60_000;
const STEP_MS = 100;

let dynamo: LocalDynamoDb;
beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  await createStateTable(dynamo.client, TABLE);
});
afterAll(() => dynamo.close());

/** Real turns of the event loop, for dynalite to answer, between two steps of the clock. */
async function ioTurns(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe('the live reserve across processes sharing the DynamoDB ledger', () => {
  it('keeps a burst of bulk claims in one process from holding back the live polls of another', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 1));
    // Two processes (the admin API's connector proxy, a poller): one table, nothing else shared.
    const proxy = new TokenBudget(
      'token',
      LIMITS,
      clock,
      new DynamoDbGrantLedger(dynamo.client, TABLE),
    );
    const poller = new TokenBudget(
      'token',
      LIMITS,
      clock,
      new DynamoDbGrantLedger(dynamo.client, TABLE),
    );
    const stop = new AbortController();
    // Its 1,000 waiting claims listen to this one signal on purpose (Node warns past 10).
    setMaxListeners(1_000, stop.signal);
    // More than it can take in the test's two minutes: claims still waiting are dropped at its end.
    for (let i = 0; i < 1_000; i++)
      proxy.acquire({ priority: 'bulk' }, stop.signal).catch(() => undefined);
    const jobs = new Map<number, number[]>([
      [5_000, []],
      [5_000 + INTERVAL_MS, []],
    ]);
    const start = clock.now();
    const done = () => [...jobs.values()].every((waits) => waits.length === STREAMS);
    while (!done() && clock.now() - start < 2 * INTERVAL_MS) {
      const waits = jobs.get(clock.now() - start);
      for (let stream = 0; waits && stream < STREAMS; stream++) {
        const askedAt = clock.now();
        const claim: BudgetClaim = {
          priority: 'live',
          streamId: `hotel:s${stream}`,
          intervalMs: INTERVAL_MS,
        };
        void poller.acquire(claim).then(() => waits.push(clock.now() - askedAt));
      }
      await ioTurns();
      await clock.advance(STEP_MS);
    }
    stop.abort();
    await ioTurns();
    expect(done()).toBe(true);
    // The first job tells the ledger of the poller's live streams; by the next, the proxy leaves
    // their reserve free, as it would in one process (0.1 s: steps of the clock). Before, the
    // proxy filled the window and the job's polls took freed slots turn about with it (1.4 s).
    expect(Math.max(...jobs.get(5_000 + INTERVAL_MS)!)).toBeLessThan(500);
  }, 60_000);
});
