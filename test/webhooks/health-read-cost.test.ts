import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import type { Delivery, FanOutWrite } from '../../shared/webhooks/store.ts';
import { attemptedFanOut, firstAttempt } from './support/fan-out-records.ts';
import { createHarness } from './support/harness.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('webhooks-health-cost');
});
afterAll(async () => {
  await table.stop();
});

const START_MS = Date.UTC(2026, 0, 1);

/** A store on a fresh table whose client counts the requests it sends, by command. */
async function countedStore(clock: ManualClock) {
  const sent = new Map<string, number>();
  const { client, tableName, close } = await table.observedTable('health', (command) => {
    sent.set(command, (sent.get(command) ?? 0) + 1);
  });
  const store = new DynamoDbWebhookStore({ client, tableName, clock });
  return { store, sent, close };
}

/**
 * Fan-outs to `subscriptionId` as the dispatcher stores them: `atOnce` events delivered at their
 * first attempt (kept on the event's item) and `retrying` ones with an item of their own.
 */
function fanOuts(subscriptionId: string, atOnce: number, retrying: number) {
  const deliveries: Delivery[] = [];
  const writes: FanOutWrite[] = [];
  for (let n = 0; n < atOnce + retrying; n++) {
    const eventId = `evt_${subscriptionId}_${n}`;
    const at = START_MS - 1000 * n;
    const retry = n < retrying;
    const delivery = attemptedFanOut(eventId, subscriptionId, at, retry);
    const { id } = delivery;
    deliveries.push(delivery);
    const event = { id: eventId, type: 'customer.updated', storedAt: at, body: '{"a":1}' };
    writes.push(
      retry
        ? {
            event,
            deliveredAtOnce: [],
            others: [{ delivery, attempts: [firstAttempt(id, at, 503)] }],
          }
        : {
            event,
            deliveredAtOnce: [{ id, subscriptionId, at, latencyMs: 5, status: 200 }],
            others: [],
          },
    );
  }
  return { deliveries, writes };
}

describe('health of every subscription on DynamoDB (dynalite)', () => {
  it('reads the endpoint states and deliveries of many subscriptions together: one list read each, nothing per delivery', async () => {
    const clock = new ManualClock(START_MS);
    const { store, sent, close } = await countedStore(clock);
    try {
      const subscriptions = 30;
      const allDeliveries: Delivery[] = [];
      const allWrites: FanOutWrite[] = [];
      for (let n = 0; n < subscriptions; n++) {
        const id = `sub_${String(n).padStart(3, '0')}`;
        await store.putSubscription({
          id,
          url: `https://hotel-${n}.example/hook`,
          events: ['*'],
          enabled: true,
          createdAt: new Date(START_MS - 100_000 + n).toISOString(),
          updatedAt: new Date(START_MS).toISOString(),
          secret: 'whsec_c2VjcmV0',
        });
        const { deliveries, writes } = fanOuts(id, 4, 2);
        allDeliveries.push(...deliveries);
        allWrites.push(...writes);
        if (n % 2 === 0) {
          await store.putEndpointState(
            {
              subscriptionId: id,
              consecutiveFailures: 2,
              failingSince: START_MS - 1000,
              failingNotified: false,
            },
            { ifVersion: undefined },
          );
        }
      }
      await store.indexDeliveries(allDeliveries);
      await store.putFanOuts(allWrites);
      const { service } = createHarness({ clock, store });
      sent.clear();
      const health = await service.allSubscriptionsHealth();
      const reads = Object.fromEntries(sent);

      expect(health).toHaveLength(subscriptions);
      expect(health[0]).toMatchObject({
        subscriptionId: 'sub_000',
        attempts: 6,
        successRate: 4 / 6,
        lastFailure: 'HTTP 503',
        consecutiveFailures: 2,
        pending: 2,
      });
      expect(health[1]).toMatchObject({ subscriptionId: 'sub_001', consecutiveFailures: 0 });
      // One Query reads the subscriptions and one each lists a subscription's deliveries; the
      // endpoint states (30 keys), the deliveries' items (6 a subscription: 180) and the items
      // of the events of those kept there (120) are read 100 keys a BatchGetItem, whichever
      // subscription they belong to; the deliveries' attempts come with their items.
      expect(reads.GetItemCommand ?? 0).toBe(0);
      expect(reads.QueryCommand).toBe(1 + subscriptions);
      expect(reads.BatchGetItemCommand).toBeLessThanOrEqual(1 + 2 + 2);
      // What each subscription's own read finds.
      for (const one of health.slice(0, 3)) {
        expect(await service.subscriptionHealth(one.subscriptionId)).toEqual(one);
      }
    } finally {
      close();
    }
  });
});
