import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BackfillJob,
  type BackfillJobStore,
  DynamoDbBackfillJobStore,
  MemoryBackfillJobStore,
} from '../../shared/admin/backfill-jobs.ts';
import { ManualClock } from '../../shared/clock.ts';
import { BridgeError, ValidationError } from '../../shared/errors.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';

const job: BackfillJob = {
  id: 'bf_1',
  startedAt: Date.UTC(2026, 0, 1),
  emit: true,
  entities: ['customer', 'resource'],
  streamIds: ['main:customer', 'main:resource'],
  historyStartMs: Date.UTC(2021, 0, 1),
  doneAtMs: Date.UTC(2026, 0, 1) - 5000,
};

let dynamo: LocalDynamoDb;
let tables = 0;
beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
});
afterAll(async () => {
  await dynamo?.close();
});

async function dynamoStore(clock = new ManualClock()): Promise<BackfillJobStore> {
  tables += 1;
  const tableName = `backfill-${process.pid}-${tables}`;
  await createStateTable(dynamo.client, tableName);
  return new DynamoDbBackfillJobStore({
    client: dynamo.client,
    tableName,
    clock,
    retentionMs: 60_000,
  });
}

const implementations: [string, () => Promise<BackfillJobStore>][] = [
  ['MemoryBackfillJobStore', async () => new MemoryBackfillJobStore()],
  ['DynamoDbBackfillJobStore on dynalite', () => dynamoStore()],
];

describe.each(implementations)('%s', (_name, create) => {
  it('stores a job and reads it back equal; unknown ids are undefined', async () => {
    const store = await create();
    await store.put(job);
    expect(await store.get('bf_1')).toEqual(job);
    expect(await store.get('bf_2')).toBeUndefined();
  });

  it('refuses a malformed job naming the field, before writing', async () => {
    const store = await create();
    const error = await store.put({ ...job, id: '' }).catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.path).toBe('id');
    expect(await store.get('')).toBeUndefined();
  });
});

describe('DynamoDbBackfillJobStore', () => {
  it('treats a job past its retention as gone', async () => {
    const clock = new ManualClock();
    const store = await dynamoStore(clock);
    await store.put(job);
    await clock.advance(60_001);
    expect(await store.get('bf_1')).toBeUndefined();
  });

  it('reports a missing table as a non-retryable BridgeError naming the table', async () => {
    const store = new DynamoDbBackfillJobStore({
      client: dynamo.client,
      tableName: 'no-such-table',
      clock: new ManualClock(),
    });
    const error = await store.get('bf_1').catch((e) => e);
    expect(error).toBeInstanceOf(BridgeError);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('no-such-table');
  });
});
