import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { fanOutDeliveryId } from '../../shared/webhooks/delivered-at-once.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import type { Delivery, FanOutWrite } from '../../shared/webhooks/store.ts';
import { attemptedFanOut, firstAttempt } from './support/fan-out-records.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('webhooks-delivery-of-event');
});
afterAll(async () => {
  await table.stop();
});

const START_MS = Date.UTC(2026, 0, 1);

/** A store on a fresh table whose client records the keys its reads ask for. */
async function countedStore(clock: ManualClock) {
  const reads = { queries: 0, keys: 0, eventKeys: 0 };
  const { client, tableName, close } = await table.observedTable(
    'delivery-of-event',
    (command, input) => {
      if (command === 'QueryCommand') reads.queries += 1;
      if (command === 'GetItemCommand') reads.keys += 1;
      if (command !== 'BatchGetItemCommand') return;
      const requests = (input.RequestItems ?? {}) as Record<string, { Keys: unknown[] }>;
      for (const request of Object.values(requests)) {
        reads.keys += request.Keys.length;
        for (const key of request.Keys as { pk?: string | { S?: string } }[]) {
          const pk = typeof key.pk === 'string' ? key.pk : key.pk?.S;
          if (pk?.startsWith('EVENT#')) reads.eventKeys += 1;
        }
      }
    },
  );
  const store = new DynamoDbWebhookStore({ client, tableName, clock });
  return { store, reads, close };
}

/** `count` events fanned out to `subscriptionIds`, each fifth delivery retrying (an item of its own). */
async function storeFanOuts(
  store: DynamoDbWebhookStore,
  subscriptionIds: readonly string[],
  count: number,
) {
  for (let n = 0; n < count; n++) {
    const eventId = `evt_${String(n).padStart(4, '0')}`;
    const at = START_MS - 1000 * (count - n);
    const deliveries: Delivery[] = [];
    const write: FanOutWrite & { deliveredAtOnce: unknown[]; others: unknown[] } = {
      event: { id: eventId, type: 'customer.updated', storedAt: at, body: '{"a":1}' },
      deliveredAtOnce: [],
      others: [],
    };
    for (const [k, subscriptionId] of subscriptionIds.entries()) {
      const retrying = (n + k) % 5 === 0;
      const delivery = attemptedFanOut(eventId, subscriptionId, at, retrying);
      const { id } = delivery;
      deliveries.push(delivery);
      if (retrying) write.others.push({ delivery, attempts: [firstAttempt(id, at, 503)] });
      else write.deliveredAtOnce.push({ id, subscriptionId, at, latencyMs: 5, status: 200 });
    }
    await store.indexDeliveries(deliveries);
    await store.putFanOuts([write]);
  }
}

describe('the deliveries of one event to one subscription on DynamoDB (dynalite)', () => {
  it('are read from the event, not from every delivery the subscription has', async () => {
    const clock = new ManualClock(START_MS);
    const { store, reads, close } = await countedStore(clock);
    try {
      const subscriptions = Array.from(
        { length: 30 },
        (_, n) => `sub_${String(n).padStart(2, '0')}`,
      );
      subscriptions[0] = 'sub_a';
      await storeFanOuts(store, subscriptions, 120);
      // A replay of an event to sub_a: a delivery of its own id, listed on the event too.
      const replay: Delivery = {
        id: 'dlv_replay',
        eventId: 'evt_0100',
        subscriptionId: 'sub_a',
        status: 'pending',
        attempts: 0,
        nextAttemptAt: START_MS,
        createdAt: START_MS,
        updatedAt: START_MS,
        version: 1,
      };
      await store.createDelivery(replay);

      const count = async (eventId: string) => {
        reads.queries = 0;
        reads.keys = 0;
        const records = await store.listDeliveryRecords({
          subscriptionId: 'sub_a',
          eventId,
          limit: 10,
        });
        return { records, reads: { ...reads } };
      };
      const atOnce = await count('evt_0101');
      const retried = await count('evt_0100');
      const none = await count('evt_9999');

      expect(atOnce.records.map((r) => r.delivery.id)).toEqual([
        fanOutDeliveryId('evt_0101', 'sub_a'),
      ]);
      expect(atOnce.records[0]!.attempts).toMatchObject([{ status: 200 }]);
      expect(retried.records.map((r) => r.delivery.id)).toEqual([
        'dlv_replay',
        fanOutDeliveryId('evt_0100', 'sub_a'),
      ]);
      expect(retried.records[1]!.attempts).toMatchObject([{ status: 503 }]);
      expect(none.records).toEqual([]);
      // The event's partition, then the items of sub_a's deliveries of it (its fan-out's, the
      // replay's) and the replay's attempt lines: not the subscription's 121 deliveries, nor the
      // 6 other subscriptions' retrying deliveries of the event.
      for (const { reads: read } of [atOnce, retried, none]) {
        expect(read.keys).toBeLessThanOrEqual(2);
        expect(read.queries).toBeLessThanOrEqual(2);
      }
    } finally {
      close();
    }
  });
});

/**
 * The hashes `read` computes (node:crypto's one-shot `hash`): a delivery kept on its event's item
 * has no id stored, its id is a hash of the event and subscription (fanOutDeliveryId).
 */
async function hashesOf<T>(read: () => Promise<T>): Promise<{ result: T; hashes: number }> {
  const spy = vi.spyOn(crypto, 'hash');
  syncBuiltinESMExports();
  try {
    const result = await read();
    return { result, hashes: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
    syncBuiltinESMExports();
  }
}

/**
 * One table for the two cases below, which only read it: 30 events fanned out to 40
 * subscriptions (`sub_a`, then `sub_01` to `sub_39`), each fifth delivery retrying.
 */
describe('forty subscriptions on DynamoDB (dynalite)', () => {
  const events = 30;
  let counted: Awaited<ReturnType<typeof countedStore>>;
  beforeAll(async () => {
    counted = await countedStore(new ManualClock(START_MS));
    const subscriptions = Array.from({ length: 40 }, (_, n) => `sub_${String(n).padStart(2, '0')}`);
    subscriptions[0] = 'sub_a';
    await storeFanOuts(counted.store, subscriptions, events);
  });
  afterAll(() => counted?.close());

  describe("a subscription's deliveries", () => {
    it("expand only its own deliveries kept on their events' items, not every subscription's", async () => {
      const { store } = counted;
      const { result: records, hashes } = await hashesOf(() =>
        store.listDeliveryRecords({ subscriptionId: 'sub_a', limit: 100 }),
      );

      expect(records).toHaveLength(events);
      expect(records[0]!.delivery.id).toBe(fanOutDeliveryId('evt_0029', 'sub_a'));
      expect(records.filter((r) => r.delivery.status === 'pending')).toHaveLength(events / 5);
      // Its list names each delivery by event (one hash each), and each of its deliveries kept
      // at once is expanded (one more): not the 40 subscriptions' entries of each event item.
      expect(hashes).toBeLessThanOrEqual(2 * events);
    });
  });

  describe("a subscription's pending deliveries, as a restart reads them", () => {
    it("are read by id, without its events' items, and are those its full list holds pending", async () => {
      const { store, reads } = counted;
      for (const subscriptionId of ['sub_a', 'sub_07']) {
        reads.eventKeys = 0;
        // What a restart read before: every delivery, those kept on the 30 event items expanded.
        const everyDelivery = await store.listDeliveries({ subscriptionId, limit: 1000 });
        expect(reads.eventKeys).toBe(events);
        reads.eventKeys = 0;
        const { result: pending, hashes } = await hashesOf(() =>
          store.listPendingDeliveries(subscriptionId, 1000),
        );
        expect(pending.map((d) => d.id)).toEqual(
          everyDelivery.filter((d) => d.status === 'pending').map((d) => d.id),
        );
        expect(pending).toHaveLength(events / 5);
        // No event item read (each holds the 40 subscriptions' deliveries kept at once), and one
        // hash per entry of its own list.
        expect(reads.eventKeys).toBe(0);
        expect(hashes).toBeLessThanOrEqual(events);
      }
      // The newest `limit` entries only, newest first.
      const newest = await store.listPendingDeliveries('sub_a', 10);
      expect(newest.map((d) => d.eventId)).toEqual(['evt_0025', 'evt_0020']);
    });
  });
});
