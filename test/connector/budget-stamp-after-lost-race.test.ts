import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { TokenBudget } from '../../shared/connector/budget/token-budget.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { LOCAL_CREDENTIALS } from '../../shared/local/local-credentials.ts';
import { DynamoDbGrantLedger } from '../../shared/state/dynamodb-grant-ledger.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';

const TABLE = 'budget-stamp-race';
const LIMITS = { requests: 10, windowMs: 30_000, marginMs: 500 };
const WINDOW_MS = LIMITS.windowMs + LIMITS.marginMs;
const START_MS = Date.UTC(2026, 11, 3);
/** How long the lost race took, on the manual clock: the second attempt writes this much later. */
const RACE_MS = 400;

let dynamo: LocalDynamoDb;
beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  await createStateTable(dynamo.client, TABLE);
});
afterAll(() => dynamo.close());

/**
 * A client whose first PutItem waits for `beforeFirstPut` (another taker's write, the clock
 * moved), so the conditional write it then sends loses its race.
 */
function clientLosingFirstRace(beforeFirstPut: () => Promise<void>): DynamoDBClient {
  const client = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
  });
  let raced = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'PutItemCommand' && !raced) {
        raced = true;
        await beforeFirstPut();
      }
      return next(args);
    },
    { step: 'initialize' },
  );
  return client;
}

describe('a grant taken after a lost write race in the DynamoDB ledger', () => {
  it('carries the time of the attempt that wrote it, in the ledger and in the budget', async () => {
    const clock = new ManualClock(START_MS);
    const other = new DynamoDbGrantLedger(dynamo.client, TABLE);
    const client = clientLosingFirstRace(async () => {
      // Between this process's read and its write: another taker writes, time passes.
      await other.take('token', () => clock.now(), WINDOW_MS, LIMITS.requests);
      await clock.advance(RACE_MS);
    });
    const ledger = new DynamoDbGrantLedger(client, TABLE);
    const budget = new TokenBudget('token', LIMITS, clock, ledger);

    const grant = await budget.acquire({ priority: 'live' });

    // Before, the second attempt wrote the first attempt's time: 400 ms old before it went.
    expect(grant).toEqual({ at: START_MS + RACE_MS, priority: 'live' });
    expect(budget.isLate(grant)).toBe(false);
    expect(await ledger.recent('token', clock.now(), WINDOW_MS)).toEqual([
      START_MS,
      START_MS + RACE_MS,
    ]);
    // The grant the budget holds is the one written: giving it back finds it.
    await budget.giveBack(grant);
    expect(await ledger.recent('token', clock.now(), WINDOW_MS)).toEqual([START_MS]);
    client.destroy();
  });
});
