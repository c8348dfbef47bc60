import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { removeConnection } from '../../shared/connections/connection-admin.ts';
import { listAllConnections } from '../../shared/connections/connection-store.ts';
import { DynamoDbConnectionStore } from '../../shared/connections/dynamodb-connection-store.ts';
import { LocalKeyFileProvider } from '../../shared/connections/local-key-file.ts';
import { MemoryConnectionStore } from '../../shared/connections/memory-connection-store.ts';
import { createTokenCipher } from '../../shared/connections/token-cipher.ts';
import { ValidationError } from '../../shared/errors.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { streamState } from '../state/state-store.contract.ts';
import { describeConnectionStoreContract, storedConnection } from './connection-store.contract.ts';

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

  it('leaves an unreadable connection out of a listing, saying which, and lists the others', async () => {
    const { tableName } = await storeOnNewTable();
    const unreadable: string[] = [];
    const store = new DynamoDbConnectionStore({
      client: dynamo.client,
      tableName,
      onUnreadable: (id) => void unreadable.push(id),
    });
    for (const id of ['hotel-1', 'hotel-3']) await store.create(storedConnection(id));
    await DynamoDBDocumentClient.from(dynamo.client).send(
      new PutCommand({
        TableName: tableName,
        Item: { pk: 'CONNECTIONS', sk: 'hotel-2', id: 'hotel-2', enabled: true, createdAt: 'x' },
      }),
    );

    expect((await listAllConnections(store)).map((c) => c.id)).toEqual(['hotel-1', 'hotel-3']);
    expect(unreadable).toEqual(['hotel-2']);
    // Paged one at a time, the page that held only the unreadable one still leads on.
    const pages = [];
    let after: string | undefined;
    do {
      const page = await store.listPage({ limit: 1, ...(after ? { after } : {}) });
      pages.push(page.connections.map((c) => c.id));
      after = page.next;
    } while (after);
    expect(pages.flat()).toEqual(['hotel-1', 'hotel-3']);
  });

  it('removes an unreadable connection a listing reported, as it is', async () => {
    const { store, tableName } = await storeOnNewTable();
    await store.create(storedConnection('hotel-1'));
    await DynamoDBDocumentClient.from(dynamo.client).send(
      new PutCommand({
        TableName: tableName,
        Item: { pk: 'CONNECTIONS', sk: 'hotel-2', id: 'hotel-2', enabled: true, createdAt: 'x' },
      }),
    );
    const state = new MemoryStateStore();
    await state.saveStream(streamState('hotel-2:customer'), 0);
    const removed = await removeConnection(
      'hotel-2',
      { keepState: false },
      {
        store,
        cipher: createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 2))),
        state,
        clock: new ManualClock(),
        configured: [],
      },
    );
    expect(removed).toEqual({
      id: 'hotel-2',
      removed: true,
      streamsDeleted: 1,
      stateDeletion: 'done',
    });
    expect((await listAllConnections(store)).map((c) => c.id)).toEqual(['hotel-1']);
    expect(await store.get('hotel-2')).toBeUndefined();
  });
});
