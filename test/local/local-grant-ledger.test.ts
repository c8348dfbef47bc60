import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { GrantLedger, TakeClaim } from '../../shared/connector/budget/grant-ledger.ts';
import { TokenBudget } from '../../shared/connector/budget/token-budget.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { localGrantLedger } from '../../shared/local/local-grant-ledger.ts';
import { DynamoDbGrantLedger } from '../../shared/state/dynamodb-grant-ledger.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';

const TABLE = 'local-grant-ledger';
const LIMITS = { requests: 10, windowMs: 30_000, marginMs: 500 };
const WINDOW_MS = LIMITS.windowMs + LIMITS.marginMs;

let dynamo: LocalDynamoDb;
beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  await createStateTable(dynamo.client, TABLE);
});
afterAll(() => dynamo.close());

/** Real turns of the event loop, for dynalite to answer, while the manual clock stands still. */
async function ioTurns(): Promise<void> {
  for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setTimeout(resolve, 1));
}

/**
 * A run killed with SIGKILL left its grants of `key` in the table: 3 live and 3 bulk, with its
 * live reserve of 8 (a stream polled every second), 5 of them unused and lasting 36.5 s more
 * (taken on `killed`, a ledger of its own unless given).
 */
async function killedRunLeftReserve(
  key: string,
  nowMs: number,
  killed: GrantLedger = new DynamoDbGrantLedger(dynamo.client, TABLE),
): Promise<void> {
  const claim = (live: boolean): TakeClaim => ({
    taker: 'killed-run',
    live,
    reserve: { requests: 8, untilMs: nowMs + 36_500 },
    bulkFloor: 2,
  });
  for (const live of [true, true, true, false, false, false]) {
    const taken = await killed.take(key, () => nowMs, WINDOW_MS, LIMITS.requests, claim(live));
    expect(taken.granted).toBe(true);
  }
}

/** Whether a bulk request of a new run's budget on `ledger` is granted without the clock moving. */
async function bulkGrantedAtOnce(key: string, ledger: GrantLedger, clock: ManualClock) {
  const budget = new TokenBudget(key, LIMITS, clock, ledger);
  const stop = new AbortController();
  let grantedAt: number | undefined;
  void budget
    .acquire({ priority: 'bulk' }, stop.signal)
    .then((grant) => {
      grantedAt = grant.at;
    })
    .catch(() => undefined);
  await ioTurns();
  stop.abort();
  return grantedAt === clock.now();
}

describe("a local run's connector budget ledger after a run killed with SIGKILL", () => {
  it("grants the new run's bulk request at once, the killed run's live reserve dropped", async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 3));
    await killedRunLeftReserve('restarted', clock.now());
    expect(
      await bulkGrantedAtOnce('restarted', localGrantLedger(dynamo.client, TABLE), clock),
    ).toBe(true);
  });

  it('keeps the reserve for pollers that share the table in AWS, where they run in parallel', async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 3));
    await killedRunLeftReserve('parallel', clock.now());
    expect(
      await bulkGrantedAtOnce('parallel', new DynamoDbGrantLedger(dynamo.client, TABLE), clock),
    ).toBe(false);
  });

  it('keeps the grants the killed run took: the server counted them', async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 3));
    await killedRunLeftReserve('counted', clock.now());
    const ledger = localGrantLedger(dynamo.client, TABLE);
    expect(await bulkGrantedAtOnce('counted', ledger, clock)).toBe(true);
    expect(await ledger.recent('counted', clock.now(), WINDOW_MS)).toHaveLength(7);
  });

  it('leaves free the live reserve another taker of the same run recorded', async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 3));
    const ledger = localGrantLedger(dynamo.client, TABLE);
    await killedRunLeftReserve('same-run', clock.now(), ledger);
    const bulk: TakeClaim = { taker: 'proxy', live: false, bulkFloor: 2 };
    const taken = await ledger.take(
      'same-run',
      () => clock.now(),
      WINDOW_MS,
      LIMITS.requests,
      bulk,
    );
    expect(taken).toMatchObject({ granted: false, heldForOthers: 5 });
  });
});
