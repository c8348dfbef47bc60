import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchWriteItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { ClassicLevel } from 'classic-level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBlindWrite } from '../../shared/local/dynalite-blind-writes.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';

const TableName = 'blind';
const key = (id: string) => ({ pk: { S: 'p' }, sk: { S: id } });
const item = (id: string, value: string) => ({ ...key(id), value: { S: value } });

let dir: string;
let dynamo: LocalDynamoDb;

/**
 * LevelDB reads of the table's items (dynalite's reads are synchronous in the local run) made
 * while `run` runs; reads of the table's description do not count.
 */
async function levelReadsDuring(run: () => Promise<unknown>): Promise<number> {
  const prototype = ClassicLevel.prototype as unknown as {
    _getSync(...args: unknown[]): unknown;
  };
  const read = prototype._getSync;
  let reads = 0;
  prototype._getSync = function counted(this: unknown, ...args: unknown[]) {
    if (String(args[0]).startsWith(`item-${TableName}~`)) reads++;
    return read.apply(this, args);
  };
  try {
    await run();
  } finally {
    prototype._getSync = read;
  }
  return reads;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bridge-blind-'));
  dynamo = await startLocalDynamoDb({ path: join(dir, 'db') });
  // The bridge's state table: pk and sk, no secondary index.
  await createStateTable(dynamo.client, TableName);
});

afterAll(async () => {
  await dynamo.close();
  await rm(dir, { recursive: true, force: true });
});

describe('local DynamoDB writes that need nothing of the item they replace', () => {
  it('counts as blind only a write with no condition, no old values, no capacity and no index', () => {
    expect(isBlindWrite({ TableName }, {})).toBe(true);
    expect(
      isBlindWrite({ TableName, ReturnValues: 'NONE', ReturnConsumedCapacity: 'NONE' }, {}),
    ).toBe(true);
    expect(isBlindWrite({ TableName, _condition: {} }, {})).toBe(false);
    expect(isBlindWrite({ TableName, Expected: {} }, {})).toBe(false);
    expect(isBlindWrite({ TableName, ReturnValues: 'ALL_OLD' }, {})).toBe(false);
    expect(isBlindWrite({ TableName, ReturnConsumedCapacity: 'TOTAL' }, {})).toBe(false);
    expect(isBlindWrite({ TableName }, { GlobalSecondaryIndexes: [{}] })).toBe(false);
    expect(isBlindWrite({ TableName }, { LocalSecondaryIndexes: [{}] })).toBe(false);
  });

  it('replaces and deletes items without reading the ones they replace', async () => {
    await dynamo.client.send(new PutItemCommand({ TableName, Item: item('a', 'one') }));
    const reads = await levelReadsDuring(async () => {
      await dynamo.client.send(new PutItemCommand({ TableName, Item: item('a', 'two') }));
      await dynamo.client.send(
        new BatchWriteItemCommand({
          RequestItems: {
            [TableName]: [
              { PutRequest: { Item: item('b', 'three') } },
              { PutRequest: { Item: item('c', 'four') } },
              { DeleteRequest: { Key: key('a') } },
            ],
          },
        }),
      );
    });
    expect(reads).toBe(0);
    const read = async (id: string) =>
      (await dynamo.client.send(new GetItemCommand({ TableName, Key: key(id) }))).Item;
    expect(await read('a')).toBeUndefined();
    expect(await read('b')).toEqual(item('b', 'three'));
    expect(await read('c')).toEqual(item('c', 'four'));
  });

  it('writes a batch of blind writes as one LevelDB batch, and leaves a bad batch to dynalite', async () => {
    const prototype = ClassicLevel.prototype as unknown as Record<
      '_put' | '_batch',
      (...args: unknown[]) => Promise<void>
    >;
    const calls = { put: 0, batch: 0 };
    const originals = { put: prototype._put, batch: prototype._batch };
    prototype._put = function countedPut(this: unknown, ...args: unknown[]) {
      calls.put++;
      return originals.put.apply(this, args);
    };
    prototype._batch = function countedBatch(this: unknown, ...args: unknown[]) {
      calls.batch++;
      return originals.batch.apply(this, args);
    };
    try {
      const written = await dynamo.client.send(
        new BatchWriteItemCommand({
          RequestItems: {
            [TableName]: Array.from({ length: 25 }, (_, i) => ({
              PutRequest: { Item: item(`batch-${i}`, String(i)) },
            })),
          },
        }),
      );
      expect(written.UnprocessedItems).toEqual({});
    } finally {
      prototype._put = originals.put;
      prototype._batch = originals.batch;
    }
    expect(calls).toEqual({ put: 0, batch: 1 });
    const stored = await dynamo.client.send(
      new GetItemCommand({ TableName, Key: key('batch-24') }),
    );
    expect(stored.Item).toEqual(item('batch-24', '24'));

    const twice = { PutRequest: { Item: item('twice', 'x') } };
    await expect(
      dynamo.client.send(
        new BatchWriteItemCommand({ RequestItems: { [TableName]: [twice, twice] } }),
      ),
    ).rejects.toThrow('Provided list of item keys contains duplicates');
    await expect(
      dynamo.client.send(
        new BatchWriteItemCommand({
          RequestItems: {
            [TableName]: [{ PutRequest: { Item: { pk: { N: '1' }, sk: { S: 'x' } } } }],
          },
        }),
      ),
    ).rejects.toThrow('The provided key element does not match the schema');
    expect(
      (await dynamo.client.send(new GetItemCommand({ TableName, Key: key('twice') }))).Item,
    ).toBeUndefined();
  });

  it('lets batches over the same keys in any order, and single writes beside them, all finish', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `shared-${i}`);
    const batchOf = (order: readonly string[], value: string) =>
      new BatchWriteItemCommand({
        RequestItems: {
          [TableName]: order.map((id) => ({ PutRequest: { Item: item(id, value) } })),
        },
      });
    await Promise.all(
      Array.from({ length: 20 }, (_, round) => [
        dynamo.client.send(batchOf(ids, `up-${round}`)),
        dynamo.client.send(batchOf([...ids].reverse(), `down-${round}`)),
        dynamo.client.send(
          new PutItemCommand({ TableName, Item: item(ids[round % 10]!, 'single') }),
        ),
      ]).flat(),
    );
    const stored = await dynamo.client.send(new GetItemCommand({ TableName, Key: key(ids[0]!) }));
    expect(stored.Item?.value?.S).toMatch(/^(up-|down-|single)/);
  });

  it('still reads the old item for conditions, old values and consumed capacity', async () => {
    await dynamo.client.send(new PutItemCommand({ TableName, Item: item('d', 'one') }));
    await expect(
      dynamo.client.send(
        new PutItemCommand({
          TableName,
          Item: item('d', 'two'),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    ).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    const replaced = await dynamo.client.send(
      new PutItemCommand({ TableName, Item: item('d', 'three'), ReturnValues: 'ALL_OLD' }),
    );
    expect(replaced.Attributes).toEqual(item('d', 'one'));
    const deleted = await dynamo.client.send(
      new DeleteItemCommand({ TableName, Key: key('d'), ReturnValues: 'ALL_OLD' }),
    );
    expect(deleted.Attributes).toEqual(item('d', 'three'));
    const large = { ...item('e', 'x'), pad: { S: 'y'.repeat(3000) } };
    await dynamo.client.send(new PutItemCommand({ TableName, Item: large }));
    const small = await dynamo.client.send(
      new PutItemCommand({ TableName, Item: item('e', 'z'), ReturnConsumedCapacity: 'TOTAL' }),
    );
    // A put costs the larger of the old and the new item: 3 write units for the 3 KB one, not 1.
    expect(small.ConsumedCapacity?.CapacityUnits).toBe(3);
  });
});
