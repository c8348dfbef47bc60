import {
  DeleteItemCommand,
  type DynamoDBClient,
  PutItemCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import {
  lastExpirySweep,
  noteExpirySweep,
  removeExpiredItems,
} from '../../shared/local/expired-items.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';

const NOW_SECONDS = 1_800_000_000;

/** `client`, with `before` run ahead of each command it sends (to interleave another writer). */
function sendingThrough(
  client: DynamoDBClient,
  before: (command: unknown) => Promise<void>,
): Pick<DynamoDBClient, 'send'> {
  return {
    send: (async (command: ScanCommand) => {
      await before(command);
      return client.send(command);
    }) as DynamoDBClient['send'],
  };
}
let tableCount = 0;

describe('removeExpiredItems over dynalite', () => {
  let dynamo: LocalDynamoDb;
  let tableName: string;

  beforeAll(async () => {
    dynamo = await startLocalDynamoDb();
  });
  afterAll(async () => {
    await dynamo.close();
  });
  beforeEach(async () => {
    tableName = `expiry-${++tableCount}`;
    await createStateTable(dynamo.client, tableName);
  });

  const put = (sk: string, ttl?: { N: string } | { S: string }) =>
    dynamo.client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { pk: { S: 'P' }, sk: { S: sk }, ...(ttl ? { ttl } : {}) },
      }),
    );
  const keys = async () => {
    const page = await dynamo.client.send(new ScanCommand({ TableName: tableName }));
    return (page.Items ?? []).map((item) => item.sk?.S).sort();
  };

  it('removes the items whose ttl has passed and keeps the rest, across pages', async () => {
    for (let i = 0; i < 5; i++) await put(`expired-${i}`, { N: String(NOW_SECONDS - 1 - i) });
    await put('due-now', { N: String(NOW_SECONDS) });
    await put('later', { N: String(NOW_SECONDS + 60) });
    await put('no-ttl');
    await put('text-ttl', { S: '1' });

    const removed = await removeExpiredItems({
      client: dynamo.client,
      tableName,
      nowSeconds: () => NOW_SECONDS,
      pageItems: 2,
      pauseMs: 0,
    });

    expect(removed).toBe(5);
    expect(await keys()).toEqual(['due-now', 'later', 'no-ttl', 'text-ttl']);
  });

  it('keeps an item written again with a later ttl between the read and the delete', async () => {
    await put('lease', { N: String(NOW_SECONDS - 10) });
    await put('event', { N: String(NOW_SECONDS - 10) });
    // The lease is renewed just before its delete is sent, as another writer might.
    const client = sendingThrough(dynamo.client, async (command) => {
      if (command instanceof DeleteItemCommand && command.input.Key?.sk?.S === 'lease')
        await put('lease', { N: String(NOW_SECONDS + 3600) });
    });

    const removed = await removeExpiredItems({
      client,
      tableName,
      nowSeconds: () => NOW_SECONDS,
      pauseMs: 0,
    });

    expect(removed).toBe(1);
    expect(await keys()).toEqual(['lease']);
  });

  it('ends between two pages once its signal aborts, keeping what it removed', async () => {
    for (let i = 0; i < 6; i++) await put(`expired-${i}`, { N: String(NOW_SECONDS - 1) });
    const stop = new AbortController();
    let scans = 0;
    const client = sendingThrough(dynamo.client, async (command) => {
      if (command instanceof ScanCommand && ++scans === 1) stop.abort();
    });

    const removed = await removeExpiredItems({
      client,
      tableName,
      nowSeconds: () => NOW_SECONDS,
      signal: stop.signal,
      pageItems: 2,
      pauseMs: 0,
    });

    expect(scans).toBe(1);
    expect(removed).toBe(2);
    expect(await keys()).toHaveLength(4);
  });

  it('records when the store was last swept, which a sweep never removes', async () => {
    expect(await lastExpirySweep(dynamo.client, tableName)).toBeUndefined();
    await noteExpirySweep(dynamo.client, tableName, 1_700_000_000_123);
    await removeExpiredItems({
      client: dynamo.client,
      tableName,
      nowSeconds: () => NOW_SECONDS,
      pauseMs: 0,
    });

    expect(await lastExpirySweep(dynamo.client, tableName)).toBe(1_700_000_000_123);
  });

  it('createStateTable says whether it created the table', async () => {
    expect(await createStateTable(dynamo.client, `${tableName}-again`)).toBe(true);
    expect(await createStateTable(dynamo.client, `${tableName}-again`)).toBe(false);
  });
});
