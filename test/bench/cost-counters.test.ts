import { afterEach, describe, expect, it } from 'vitest';
import { countDynamoDb } from '../../bench/cost-counters.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { streamState } from '../state/state-store.contract.ts';

let dynamo: LocalDynamoDb | undefined;

afterEach(async () => {
  await dynamo?.close();
  dynamo = undefined;
});

describe('counting DynamoDB commands in benchmarks', () => {
  it('refuses a store answered in process, whose commands would skip the counters', async () => {
    dynamo = await startLocalDynamoDb();
    expect(() => countDynamoDb(dynamo!.client)).toThrow(/transport "http"/);
  });

  it("counts a store's commands and their capacity through the SDK", async () => {
    dynamo = await startLocalDynamoDb({ transport: 'http' });
    await createStateTable(dynamo.client, 'counted');
    const store = new DynamoDbStateStore({ client: dynamo.client, tableName: 'counted' });
    await store.saveStream(streamState('a:customer'), 0);
    const counts = countDynamoDb(dynamo.client);
    await store.getStream('a:customer');
    expect(counts.commands.get('GetItem')).toBe(1);
    expect(counts.readUnits).toBeGreaterThan(0);
  });
});
