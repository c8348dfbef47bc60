import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbConnectionStore } from '../../shared/connections/dynamodb-connection-store.ts';
import { MemoryConnectionStore } from '../../shared/connections/memory-connection-store.ts';
import { ValidationError } from '../../shared/errors.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { describeConnectionStoreContract } from './connection-store.contract.ts';

let dynamo: LocalDynamoDb;
let tables = 0;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
});

afterAll(async () => {
  await dynamo?.close();
});

async function storeOnNewTable(): Promise<{ store: DynamoDbConnectionStore; tableName: string }> {
  tables += 1;
  const tableName = `connections-${process.pid}-${tables}`;
  await createStateTable(dynamo.client, tableName);
  return { store: new DynamoDbConnectionStore({ client: dynamo.client, tableName }), tableName };
}

describeConnectionStoreContract('MemoryConnectionStore', async () => new MemoryConnectionStore());
describeConnectionStoreContract(
  'DynamoDbConnectionStore on dynalite',
  async () => (await storeOnNewTable()).store,
);

describe('DynamoDbConnectionStore on dynalite: stored items', () => {
  it('rejects a stored connection without a sealed token, naming accessToken', async () => {
    const { store, tableName } = await storeOnNewTable();
    await DynamoDBDocumentClient.from(dynamo.client).send(
      new PutCommand({
        TableName: tableName,
        Item: { pk: 'CONNECTIONS', sk: 'bad', id: 'bad', enabled: true, createdAt: 'x' },
      }),
    );

    const error = await store.get('bad').catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.path).toBe('accessToken');
  });
});
