import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, seededRandom } from '../../shared/clock.ts';
import { openLocalStores } from '../../shared/local/local-stores.ts';
import { LOCAL_TABLE_NAME } from '../../shared/local/local-table-name.ts';
import { documentClientOf } from '../../shared/state/document-client.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import { compressEventBody, decompressEventBody } from '../../shared/webhooks/event-body-codec.ts';
import { changeEvent, eventIdOf } from './support/harness.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable(LOCAL_TABLE_NAME);
});
afterAll(async () => {
  await table.stop();
});

const clock = new ManualClock(Date.UTC(2026, 0, 1));
const bodyOf = (n: number) =>
  JSON.stringify({ ...changeEvent(eventIdOf(n)), note: 'Floriańska 31, 東京 🏨 "quoted"' });

async function storeOn(options: { compressBodies?: boolean } = {}) {
  const tableName = await table.freshTable('event-bodies');
  const store = new DynamoDbWebhookStore({ client: table.client, tableName, clock, ...options });
  const documents = documentClientOf(table.client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  const rawItem = async (id: string) =>
    (
      await documents.send(
        new GetCommand({ TableName: tableName, Key: { pk: `EVENT#${id}`, sk: 'EVENT' } }),
      )
    ).Item;
  const putRaw = (item: Record<string, unknown>) =>
    documents.send(new PutCommand({ TableName: tableName, Item: item }));
  return { store, rawItem, putRaw };
}

describe('stored event bodies in DynamoDB', () => {
  it('are compressed by default (AWS: the 1 KB write unit), beside the summary in doc', async () => {
    const { store, rawItem } = await storeOn();
    const body = bodyOf(1);
    await store.putEvent({ id: eventIdOf(1), type: 'customer.updated', storedAt: 5, body });
    const item = await rawItem(eventIdOf(1));
    expect(item?.body).toBeInstanceOf(Uint8Array);
    expect(decompressEventBody(item?.body as Uint8Array)).toBe(body);
    expect(item?.doc).toEqual({ type: 'customer.updated', storedAt: 5 });
  });

  it('read back the same whether compressed or, as older releases stored them, as text in doc', async () => {
    const { store, putRaw } = await storeOn();
    const base = (n: number) => ({ pk: `EVENT#${eventIdOf(n)}`, sk: 'EVENT', ttl: 1 });
    const summary = { type: 'customer.updated', storedAt: 9 };
    await putRaw({ ...base(5), doc: summary, body: compressEventBody(bodyOf(5)) });
    await putRaw({ ...base(7), doc: { ...summary, body: bodyOf(7) } });
    for (const n of [5, 7]) {
      expect((await store.getEvent(eventIdOf(n)))?.body).toBe(bodyOf(n));
    }
    const records = await store.getEventRecords([5, 7].map(eventIdOf));
    expect([5, 7].map((n) => records.get(eventIdOf(n))?.event.body)).toEqual([5, 7].map(bodyOf));
    expect(records.get(eventIdOf(7))?.event).toEqual({
      id: eventIdOf(7),
      type: 'customer.updated',
      storedAt: 9,
      body: bodyOf(7),
    });
  });

  it('are kept as text, in one attribute, by a store told not to compress (the local run)', async () => {
    const { store, rawItem } = await storeOn({ compressBodies: false });
    const body = bodyOf(2);
    await store.putEvent({ id: eventIdOf(2), type: 'customer.updated', storedAt: 5, body });
    await store.putFanOuts([
      {
        event: { id: eventIdOf(3), type: 'customer.updated', storedAt: 6, body: bodyOf(3) },
        deliveredAtOnce: [],
        others: [],
      },
    ]);
    for (const n of [2, 3]) {
      const item = await rawItem(eventIdOf(n));
      expect(item?.text).toBe(bodyOf(n));
      expect(item).not.toHaveProperty('body');
      expect((await store.getEvent(eventIdOf(n)))?.body).toBe(bodyOf(n));
    }
  });

  it('read back by either store whichever way they were stored (a data dir of an earlier release)', async () => {
    const { store, putRaw } = await storeOn({ compressBodies: false });
    const base = (n: number) => ({ pk: `EVENT#${eventIdOf(n)}`, sk: 'EVENT', ttl: 1 });
    const summary = { type: 'customer.updated', storedAt: 9 };
    await putRaw({ ...base(5), doc: summary, body: compressEventBody(bodyOf(5)) });
    await putRaw({ ...base(6), doc: summary, text: bodyOf(6) });
    await putRaw({ ...base(7), doc: { ...summary, body: bodyOf(7) } });
    const records = await store.getEventRecords([5, 6, 7].map(eventIdOf));
    expect([5, 6, 7].map((n) => records.get(eventIdOf(n))?.event.body)).toEqual(
      [5, 6, 7].map(bodyOf),
    );
  });

  it("are text in the local run's store", async () => {
    const { webhookStore } = openLocalStores(table.client, clock, seededRandom(1));
    await webhookStore.putEvent({
      id: eventIdOf(9),
      type: 'customer.updated',
      storedAt: 5,
      body: bodyOf(9),
    });
    const documents = documentClientOf(table.client, {});
    const { Item } = await documents.send(
      new GetCommand({
        TableName: LOCAL_TABLE_NAME,
        Key: { pk: `EVENT#${eventIdOf(9)}`, sk: 'EVENT' },
      }),
    );
    expect(Item?.text).toBe(bodyOf(9));
  });
});
