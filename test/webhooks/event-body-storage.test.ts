import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { documentClientOf } from '../../shared/state/document-client.ts';
import { DELIVERED_AT_ONCE_PROJECTION } from '../../shared/webhooks/dynamodb-items.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import { WebhookTable } from '../../shared/webhooks/dynamodb-table-access.ts';
import { compressEventBody, decompressEventBody } from '../../shared/webhooks/event-body-codec.ts';
import { changeEvent, eventIdOf } from './support/harness.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('webhooks-event-bodies');
});
afterAll(async () => {
  await table.stop();
});

const clock = new ManualClock(Date.UTC(2026, 0, 1));
const bodyOf = (n: number) =>
  JSON.stringify({ ...changeEvent(eventIdOf(n)), note: 'Floriańska 31, 東京 🏨 "quoted"' });

async function storeOn(options: { compressEventBodiesAbove?: number } = {}) {
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
  return { store, tableName, rawItem, putRaw };
}

describe('stored event bodies in DynamoDB', () => {
  it('are compressed by default (AWS: the 1 KB write unit), beside the summary in doc', async () => {
    const { store, rawItem } = await storeOn();
    const body = bodyOf(1);
    await store.putEvent({ id: eventIdOf(1), type: 'customer.updated', storedAt: 5, body });
    const item = await rawItem(eventIdOf(1));
    expect(item?.body).toBeInstanceOf(Uint8Array);
    expect(decompressEventBody(item?.body as Uint8Array)).toBe(body);
    expect(item?.text).toBeUndefined();
    expect(item?.doc).toEqual({ type: 'customer.updated', storedAt: 5 });
  });

  it('are stored as text in an attribute of their own when compression is off (the local run)', async () => {
    const { store, rawItem } = await storeOn({
      compressEventBodiesAbove: Number.POSITIVE_INFINITY,
    });
    const body = bodyOf(2);
    await store.putEvent({ id: eventIdOf(2), type: 'customer.updated', storedAt: 6, body });
    await store.putFanOuts([
      {
        event: { id: eventIdOf(3), type: 'customer.updated', storedAt: 7, body: bodyOf(3) },
        deliveredAtOnce: [],
        others: [],
      },
    ]);
    for (const [n, text] of [
      [2, body],
      [3, bodyOf(3)],
    ] as const) {
      const item = await rawItem(eventIdOf(n));
      expect(item?.text).toBe(text);
      expect(item?.body).toBeUndefined();
      // Not in `doc`: what reads the deliveries kept on an event's item leaves the body behind.
      expect(Object.keys(item?.doc as object).sort()).toEqual(['storedAt', 'type']);
    }
  });

  it('leave their text behind in the projection that reads the deliveries kept on an event', async () => {
    const { store, tableName } = await storeOn({
      compressEventBodiesAbove: Number.POSITIVE_INFINITY,
    });
    await store.putEvent({
      id: eventIdOf(4),
      type: 'customer.updated',
      storedAt: 8,
      body: bodyOf(4),
    });
    const webhookTable = WebhookTable.on(table.client, tableName);
    const [item] = await webhookTable.batchGetItems(
      [{ pk: `EVENT#${eventIdOf(4)}`, sk: 'EVENT' }],
      DELIVERED_AT_ONCE_PROJECTION,
    );
    expect(item?.doc).toEqual({ type: 'customer.updated', storedAt: 8 });
    expect(item?.text).toBeUndefined();
  });

  it('read back the same in all three stored forms, whichever way the store writes', async () => {
    for (const compressEventBodiesAbove of [0, Number.POSITIVE_INFINITY]) {
      const { store, putRaw } = await storeOn({ compressEventBodiesAbove });
      const base = (n: number) => ({ pk: `EVENT#${eventIdOf(n)}`, sk: 'EVENT', ttl: 1 });
      const summary = { type: 'customer.updated', storedAt: 9 };
      await putRaw({ ...base(5), doc: summary, body: compressEventBody(bodyOf(5)) });
      await putRaw({ ...base(6), doc: summary, text: bodyOf(6) });
      // As releases before compressed bodies stored them: the text inside `doc`.
      await putRaw({ ...base(7), doc: { ...summary, body: bodyOf(7) } });
      for (const n of [5, 6, 7]) {
        expect((await store.getEvent(eventIdOf(n)))?.body).toBe(bodyOf(n));
      }
      const records = await store.getEventRecords([5, 6, 7].map(eventIdOf));
      expect([5, 6, 7].map((n) => records.get(eventIdOf(n))?.event.body)).toEqual(
        [5, 6, 7].map(bodyOf),
      );
      expect(records.get(eventIdOf(6))?.event).toEqual({
        id: eventIdOf(6),
        type: 'customer.updated',
        storedAt: 9,
        body: bodyOf(6),
      });
    }
  });
});
