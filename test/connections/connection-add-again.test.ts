import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  AddConnectionInputSchema,
  type ConnectionAdminDeps,
  registerConnection,
} from '../../shared/connections/connection-admin.ts';
import {
  ConnectionExistsError,
  type ConnectionStore,
} from '../../shared/connections/connection-store.ts';
import { DynamoDbConnectionStore } from '../../shared/connections/dynamodb-connection-store.ts';
import { LocalKeyFileProvider } from '../../shared/connections/local-key-file.ts';
import { MemoryConnectionStore } from '../../shared/connections/memory-connection-store.ts';
import { createTokenCipher } from '../../shared/connections/token-cipher.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';

const TOKEN = 'hotel-token-3d81';
const P1 = '1a2b3c4d-0000-4000-8000-000000000001';
const P2 = '1a2b3c4d-0000-4000-8000-000000000002';
const EXPORT = '1a2b3c4d-0000-4000-8000-0000000000e1';
/** The key file's key: the one every cipher of a test opens with. */
const KEY = Buffer.alloc(32, 4);

let dynamo: LocalDynamoDb;
let tables = 0;
beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
});
afterAll(async () => {
  await dynamo?.close();
});

async function dynamoStore(): Promise<{ store: ConnectionStore; tableName: string }> {
  tables += 1;
  const tableName = `connections-again-${process.pid}-${tables}`;
  await createStateTable(dynamo.client, tableName);
  return { store: new DynamoDbConnectionStore({ client: dynamo.client, tableName }), tableName };
}

function depsOf(store: ConnectionStore, clock = new ManualClock()): ConnectionAdminDeps {
  return {
    store,
    // Not cached: every seal is under a fresh data key, as in separate admin containers.
    cipher: createTokenCipher(new LocalKeyFileProvider(KEY)),
    state: new MemoryStateStore(),
    clock,
    configured: [],
  };
}

const input = (fields: Record<string, unknown> = {}) =>
  AddConnectionInputSchema.parse({
    id: 'hotel-1',
    accessToken: TOKEN,
    entities: 'customer,resource',
    interval: '5m',
    portfolioScope: { chainIds: ['c8a1c4b3-0f0b-4c8a-9d0e-2b1f3c4d5e6f'], enterpriseIds: [] },
    productIds: `${P1},${P2}@Europe/Prague`,
    ...fields,
  });

for (const [name, open] of [
  ['DynamoDbConnectionStore on dynalite', async () => (await dynamoStore()).store],
  ['MemoryConnectionStore', async () => new MemoryConnectionStore()],
] as const) {
  describe(`connections add again, ${name}`, () => {
    it('answers a retried identical add with the stored connection, storing nothing', async () => {
      const store = await open();
      const clock = new ManualClock();
      const first = await registerConnection(input(), depsOf(store, clock));
      const stored = await store.get('hotel-1');
      await clock.advance(60_000);

      const again = await registerConnection(input(), depsOf(store, clock));

      expect(first.created).toBe(true);
      expect(again).toEqual({ created: false, connection: first.connection });
      expect(await store.get('hotel-1')).toEqual(stored);
    });

    it('refuses an add that differs in the token or a setting, naming what differs', async () => {
      const store = await open();
      await registerConnection(input(), depsOf(store));
      const stored = await store.get('hotel-1');

      const refusals = await Promise.all(
        [
          input({ accessToken: `${TOKEN}x` }),
          input({ portfolioScope: undefined, entities: 'customer,resource' }),
          input({ productIds: `${P2}@Europe/Prague,${P1}` }),
          input({ interval: undefined, exportIds: EXPORT }),
        ].map((changed) => registerConnection(changed, depsOf(store)).catch((error) => error)),
      );

      expect(refusals.map((error) => error instanceof ConnectionExistsError)).toEqual([
        true,
        true,
        true,
        true,
      ]);
      expect(refusals.map((error) => (error as Error).message)).toEqual([
        'connection hotel-1 exists already, taken by a different definition (accessToken differs): remove it first, or choose another id',
        'connection hotel-1 exists already, taken by a different definition (portfolioScope differs): remove it first, or choose another id',
        'connection hotel-1 exists already, taken by a different definition (productIds differs): remove it first, or choose another id',
        'connection hotel-1 exists already, taken by a different definition (interval, exportIds differ): remove it first, or choose another id',
      ]);
      expect(await store.get('hotel-1')).toEqual(stored);
    });
  });
}

describe('connections add again over an item an earlier version stored (dynalite)', () => {
  it('compares its sealed token and settings as they are, with no migration', async () => {
    const { store, tableName } = await dynamoStore();
    const cipher = createTokenCipher(new LocalKeyFileProvider(KEY));
    // The item as releases before this one wrote it: the same fields, nothing added.
    await DynamoDBDocumentClient.from(dynamo.client).send(
      new PutCommand({
        TableName: tableName,
        Item: {
          pk: 'CONNECTIONS',
          sk: 'hotel-1',
          id: 'hotel-1',
          entities: ['customer'],
          enabled: true,
          createdAt: '2026-01-01T00:00:00.000Z',
          accessToken: await cipher.seal('hotel-1', TOKEN),
          nextDueAt: 1_767_225_600_000,
        },
      }),
    );

    const again = await registerConnection(
      AddConnectionInputSchema.parse({ id: 'hotel-1', accessToken: TOKEN, entities: 'customer' }),
      depsOf(store),
    );
    const other = await registerConnection(
      AddConnectionInputSchema.parse({ id: 'hotel-1', accessToken: 'other', entities: 'customer' }),
      depsOf(store),
    ).catch((error) => error);

    expect(again).toMatchObject({
      created: false,
      connection: { id: 'hotel-1', createdAt: '2026-01-01T00:00:00.000Z', origin: 'store' },
    });
    expect(other).toBeInstanceOf(ConnectionExistsError);
    expect(other.message).toContain('(accessToken differs)');
  });

  it('refuses the add when the stored token no longer opens (its key replaced), saying so', async () => {
    const { store } = await dynamoStore();
    await registerConnection(input(), depsOf(store));
    const replacedKey = {
      ...depsOf(store),
      cipher: createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 9))),
    };

    const error = await registerConnection(input(), replacedKey).catch((thrown) => thrown);

    expect(error).toBeInstanceOf(ConnectionExistsError);
    expect(error.message).toContain(
      'exists already, but its stored AccessToken does not open here',
    );
    expect(error.message).not.toContain(TOKEN);
  });
});
