import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BridgeError } from '../../shared/errors.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { createStoreOnNewTable, describeMalformedItems } from './dynamodb-harness.ts';
import { describeStateStoreContract, snapshot, streamState } from './state-store.contract.ts';

let dynamo: LocalDynamoDb;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
});

afterAll(async () => {
  await dynamo?.close();
});

describeStateStoreContract(
  'DynamoDbStateStore on dynalite',
  async () => (await createStoreOnNewTable(dynamo.client)).store,
);
describeMalformedItems('DynamoDbStateStore on dynalite', () => dynamo.client);

describe('DynamoDbStateStore on dynalite: failures and tables', () => {
  it('reports a missing table as a non-retryable BridgeError naming the operation and table', async () => {
    const store = new DynamoDbStateStore({ client: dynamo.client, tableName: 'no-such-table' });

    const error = await store.getStream('main:customer').catch((e) => e);
    expect(error).toBeInstanceOf(BridgeError);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('GetItem on table no-such-table');
    expect(error.cause).toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(store.putSnapshots('s', [snapshot('a')])).rejects.toMatchObject({
      retryable: false,
    });
  });

  it('creates the table idempotently, keeping what it holds', async () => {
    const { store, tableName } = await createStoreOnNewTable(dynamo.client);
    await store.saveStream(streamState('main:customer'), 0);

    await createStateTable(dynamo.client, tableName);
    expect(await store.getStream('main:customer')).toMatchObject({ version: 1 });
  });
});

describe('DynamoDbStateStore on dynalite: removed stream notes of before removedAt was kept', () => {
  it('lists a note without removedAt and drops it only while it still has none', async () => {
    const { store, tableName } = await createStoreOnNewTable(dynamo.client);
    const documents = DynamoDBDocumentClient.from(dynamo.client);
    for (const sk of ['a:customer', 'b:customer'])
      await documents.send(
        new PutCommand({ TableName: tableName, Item: { pk: 'REMOVED_STREAMS', sk } }),
      );
    const [a, b] = await store.listRemovedStreams(10);
    expect([a, b]).toEqual([{ streamId: 'a:customer' }, { streamId: 'b:customer' }]);
    // b removed again by this release before the purge drops the old note.
    await store.markStreamRemoved('b:customer', 20);

    expect(await store.unmarkStreamRemoved(a!)).toBe(true);
    expect(await store.unmarkStreamRemoved(b!)).toBe(false);
    expect(await store.listRemovedStreams(10)).toEqual([{ streamId: 'b:customer', removedAt: 20 }]);
  });
});

describe('DynamoDbStateStore on dynalite: item size', () => {
  const notes = 'Prefers a quiet room facing the courtyard; allergic to feathers. '.repeat(30);
  const big = snapshot('big', { record: { Id: 'big', LastName: 'Dvořák', Notes: notes } });

  async function storedItem(tableName: string) {
    const documents = DynamoDBDocumentClient.from(dynamo.client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    const { Item } = await documents.send(
      new GetCommand({ TableName: tableName, Key: { pk: 'STREAM#main:customer', sk: 'SNAP#big' } }),
    );
    expect(Item).toBeDefined();
    return Item!;
  }

  it('stores a record over 600 bytes deflated, within one write unit, and reads it back intact', async () => {
    const { store, tableName } = await createStoreOnNewTable(dynamo.client);
    await store.putSnapshots('main:customer', [big]);

    const item = await storedItem(tableName);
    expect(item.record).toBeUndefined();
    expect(item.recordZ).toBeInstanceOf(Uint8Array);
    expect((item.recordZ as Uint8Array).length).toBeLessThan(600);
    expect((await store.getSnapshots('main:customer', ['big'])).get('big')).toEqual(big);
  });

  it('stores records as text when told never to deflate, and either store reads what the other wrote', async () => {
    const { store: deflating, tableName } = await createStoreOnNewTable(dynamo.client);
    const plain = new DynamoDbStateStore({
      client: dynamo.client,
      tableName,
      compressSnapshotsAbove: Number.POSITIVE_INFINITY,
    });
    await plain.putSnapshots('main:customer', [big]);

    const item = await storedItem(tableName);
    expect(item.recordZ).toBeUndefined();
    expect(JSON.parse(item.record as string)).toEqual(big.record);
    expect((await deflating.getSnapshots('main:customer', ['big'])).get('big')).toEqual(big);

    await deflating.putSnapshots('main:customer', [big]);
    expect((await storedItem(tableName)).recordZ).toBeInstanceOf(Uint8Array);
    expect((await plain.getSnapshots('main:customer', ['big'])).get('big')).toEqual(big);
  });
});
