import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ITEM_PUTS_PER_LEVEL_BATCH } from '../../shared/local/dynalite-item-puts.ts';
import { resolveFromDynalite } from '../../shared/local/dynalite-require.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { type ItemPuts, itemPutsOf } from '../../shared/state/item-puts.ts';

const TableName = 'puts';
const marshalled = (item: Record<string, unknown>) =>
  marshall(item, { removeUndefinedValues: true, convertTopLevelContainer: false });

/** dynalite's copy of classic-level, to count its writes and make them fail. */
const { ClassicLevel } = createRequire(resolveFromDynalite('level'))('classic-level') as {
  ClassicLevel: { prototype: Record<'_put' | '_batch', (...args: unknown[]) => Promise<void>> };
};

let dir: string;
let dynamo: LocalDynamoDb;
let puts: ItemPuts;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bridge-item-puts-'));
  dynamo = await startLocalDynamoDb({ path: join(dir, 'db'), listen: false });
  await createStateTable(dynamo.client, TableName);
  puts = itemPutsOf(dynamo.client)!;
});

afterAll(async () => {
  await dynamo.close();
  await rm(dir, { recursive: true, force: true });
});

const read = async (pk: string, sk: string) =>
  (await dynamo.client.send(new GetItemCommand({ TableName, Key: marshalled({ pk, sk }) }))).Item;

describe('item puts straight into the local store', () => {
  it('are routed for the in-process store only', async () => {
    expect(puts).toBeDefined();
    const overHttp = await startLocalDynamoDb({ transport: 'http' });
    try {
      expect(itemPutsOf(overHttp.client)).toBeUndefined();
    } finally {
      await overHttp.close();
    }
  });

  it('store an item as a PutItem of the same item does, and replace what its key held', async () => {
    const fields = {
      text: 'quote " Δελφοί 🏨 \n',
      n: 42,
      fraction: -12.375,
      small: 0.000001,
      flag: false,
      none: null,
      bytes: new Uint8Array([0, 1, 254, 255]),
      list: ['a', 1, { m: 'x' }],
      map: { inner: { deeper: 'y' } },
    };
    await dynamo.client.send(
      new PutItemCommand({ TableName, Item: marshalled({ pk: 'p', sk: 'by-sdk', ...fields }) }),
    );
    await dynamo.client.send(
      new PutItemCommand({
        TableName,
        Item: marshalled({ pk: 'p', sk: 'direct', old: 'attribute the put replaces' }),
      }),
    );
    expect(await puts.put(TableName, [{ pk: 'p', sk: 'direct', ...fields }])).toEqual([]);

    const bySdk = await read('p', 'by-sdk');
    const direct = await read('p', 'direct');
    expect({ ...direct, sk: undefined }).toEqual({ ...bySdk, sk: undefined });
    expect(direct?.old).toBeUndefined();
    // Queried in key order among the others, as any item.
    const listed = await dynamo.client.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': { S: 'p' } },
      }),
    );
    expect(listed.Items?.map((item) => item.sk?.S)).toEqual(['by-sdk', 'direct']);
  });

  it('write a hundred items to a LevelDB batch', async () => {
    const calls = { put: 0, batch: 0 };
    const { _put: put, _batch: batch } = ClassicLevel.prototype;
    ClassicLevel.prototype._put = function counted(this: unknown, ...args: unknown[]) {
      calls.put++;
      return put.apply(this, args);
    };
    ClassicLevel.prototype._batch = function counted(this: unknown, ...args: unknown[]) {
      calls.batch++;
      return batch.apply(this, args);
    };
    try {
      const items = Array.from({ length: 300 }, (_, i) => ({ pk: 'many', sk: `${i}`, i }));
      expect(await puts.put(TableName, items)).toEqual([]);
    } finally {
      ClassicLevel.prototype._put = put;
      ClassicLevel.prototype._batch = batch;
    }
    expect(calls).toEqual({ put: 0, batch: Math.ceil(300 / ITEM_PUTS_PER_LEVEL_BATCH) });
    expect(await read('many', '299')).toEqual(marshalled({ pk: 'many', sk: '299', i: 299 }));
  });

  it('leave the items they do not take, and write nothing of them', async () => {
    const valid = { pk: 'refused', sk: 'valid' };
    const refused: Array<Record<string, unknown>[]> = [
      [valid, { pk: 'refused', sk: 'set', tags: new Set(['a']) }],
      [valid, { pk: 'refused', sk: 'exponent', n: 1e-7 }],
      [valid, { ...valid }],
      [valid, { pk: 'refused', sk: 'large', text: 'x'.repeat(400 * 1024) }],
      [valid, { pk: 'refused', sk: 1 }],
      [valid, { pk: 'refused', sk: '' }],
      [valid, { pk: 'refused' }],
    ];
    for (const items of refused) expect(await puts.put(TableName, items)).toEqual(items);
    expect(await puts.put('no-such-table', [valid])).toEqual([valid]);
    expect(await read('refused', 'valid')).toBeUndefined();
  });

  it('leave, from the first LevelDB batch holding an item they do not take, the rest', async () => {
    const items: Record<string, unknown>[] = Array.from({ length: 250 }, (_, i) => ({
      pk: 'partly',
      sk: `${1000 + i}`,
    }));
    items[150] = { ...items[150], tags: new Set(['a']) };
    expect(await puts.put(TableName, items)).toEqual(items.slice(ITEM_PUTS_PER_LEVEL_BATCH));
    expect(await read('partly', '1099')).toEqual(marshalled({ pk: 'partly', sk: '1099' }));
    expect(await read('partly', '1100')).toBeUndefined();
    // A key given again in a later batch: that batch and the rest are left.
    const again = [...items.slice(0, 150), { pk: 'partly', sk: '1000' }];
    again[149] = { pk: 'partly', sk: '1149' };
    expect(await puts.put(TableName, again)).toEqual(again.slice(ITEM_PUTS_PER_LEVEL_BATCH));
  });

  it('leave every item for a table with a secondary index, whose index dynalite must update', async () => {
    await dynamo.client.send(
      new CreateTableCommand({
        TableName: 'indexed',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'gsi', AttributeType: 'S' },
        ],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'by-gsi',
            KeySchema: [{ AttributeName: 'gsi', KeyType: 'HASH' }],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await puts.put('indexed', [{ pk: 'a', gsi: 'g' }])).toEqual([{ pk: 'a', gsi: 'g' }]);
  });

  it('fail as the store fails, retryable through the state store, and write once there is room', async () => {
    const store = new DynamoDbStateStore({ client: dynamo.client, tableName: TableName });
    const snapshot = { entityId: 'e1', hash: 'h', updatedAt: 1, record: { Id: 'e1' } };
    const { _batch: batch } = ClassicLevel.prototype;
    ClassicLevel.prototype._batch = async () => {
      throw new Error(`IO error: ${dir}/db/000003.log: No space left on device`);
    };
    try {
      await expect(store.putSnapshots('s', [snapshot])).rejects.toMatchObject({
        message: expect.stringMatching(/BatchWriteItem .*InternalServerError.*No space left/),
        retryable: true,
      });
    } finally {
      ClassicLevel.prototype._batch = batch;
    }
    await store.putSnapshots('s', [snapshot]);
    expect((await store.getSnapshots('s', ['e1'])).get('e1')?.record).toEqual({ Id: 'e1' });
    await dynamo.client.send(
      new DeleteItemCommand({ TableName, Key: marshalled({ pk: 'STREAM#s', sk: 'SNAP#e1' }) }),
    );
  });

  it('refuse once the store is closed, as a refused connection', async () => {
    const closing = await startLocalDynamoDb({ listen: false });
    await createStateTable(closing.client, TableName);
    const closedPuts = itemPutsOf(closing.client)!;
    await closing.close();
    await expect(closedPuts.put(TableName, [{ pk: 'a', sk: 'b' }])).rejects.toThrow(
      'ECONNREFUSED: the local DynamoDB is closed',
    );
  });
});
