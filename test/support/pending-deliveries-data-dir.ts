import { join } from 'node:path';
import { seededRandom, systemClock } from '../../shared/clock.ts';
import { STORE_FOLDER } from '../../shared/local/data-dir.ts';
import { startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { LOCAL_TABLE_NAME } from '../../shared/local/runtime.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import { attemptedFanOut, firstAttempt } from '../webhooks/support/fan-out-records.ts';
import { changeEvent, eventIdOf } from '../webhooks/support/harness.ts';

/** What {@link preparePendingDeliveries} stores. */
export interface PendingDeliveriesShape {
  /** Subscriptions, each to `url` (enabled, every event type). */
  subscriptions: number;
  /** Events, each fanned out to every subscription and waiting for its retry there. */
  events: number;
  /** The subscriber's endpoint; given several, subscription `n` posts to the `n % length`th. */
  url: string | readonly string[];
  /** The signing secret of every subscription (`whsec_…`). */
  secret: string;
  /** The subscriptions' retry schedule (default: none set, the dispatcher's). */
  retrySchedule?: readonly number[];
}

/** What was stored: the subscriptions, the events whose deliveries wait, how many deliveries. */
export interface PreparedPendingDeliveries {
  subscriptionIds: string[];
  eventIds: string[];
  deliveries: number;
}

/** How many requests of each event `received` holds, by webhook id. */
export function receivedPerEvent(received: readonly { webhookId: string }[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { webhookId } of received) counts.set(webhookId, (counts.get(webhookId) ?? 0) + 1);
  return counts;
}

/**
 * Whether `received` holds every prepared event at least `times` times. Counted per event, not
 * in all: a request cut off by a stop is sent again with its webhook-id (at least once), so the
 * total can reach the deliveries' count while one is still to come.
 */
export function everyEventReceived(
  prepared: PreparedPendingDeliveries,
  received: readonly { webhookId: string }[],
  times: number,
): boolean {
  const counts = receivedPerEvent(received);
  return prepared.eventIds.every((id) => (counts.get(id) ?? 0) >= times);
}

/** A `whsec_` secret from seed `seed` (the same for the same seed). */
export function seededSecret(seed: number): string {
  const next = seededRandom(seed);
  const bytes = Uint8Array.from({ length: 24 }, () => Math.floor(next() * 256));
  return `whsec_${Buffer.from(bytes).toString('base64')}`;
}

/**
 * Stores in `dataDir`'s store (the one `change-bridge start` opens) `shape.subscriptions`
 * subscriptions and `shape.events` events fanned out to all of them, every delivery pending its
 * retry (its first attempt answered 503) and due now, with no retry message in the queue: the
 * process that wrote them stopped before it sent them, so the next `start` finds each by reading
 * its subscription's pending deliveries and enqueues it again. Start-up grows with the
 * subscriptions (one listing each) and the deliveries (one event read and one send each).
 * @example await preparePendingDeliveries(dataDir, { subscriptions: 100, events: 10, url, secret });
 */
export async function preparePendingDeliveries(
  dataDir: string,
  shape: PendingDeliveriesShape,
): Promise<PreparedPendingDeliveries> {
  const dynamo = await startLocalDynamoDb({ listen: false, path: join(dataDir, STORE_FOLDER) });
  try {
    await createStateTable(dynamo.client, LOCAL_TABLE_NAME);
    const store = new DynamoDbWebhookStore({
      client: dynamo.client,
      tableName: LOCAL_TABLE_NAME,
      clock: systemClock,
    });
    const now = Date.now();
    const subscriptionIds = Array.from(
      { length: shape.subscriptions },
      (_, n) => `sub_pending_${String(n).padStart(5, '0')}`,
    );
    const urls = typeof shape.url === 'string' ? [shape.url] : shape.url;
    for (const [n, id] of subscriptionIds.entries()) {
      await store.putSubscription({
        id,
        url: urls[n % urls.length]!,
        events: ['*'],
        enabled: true,
        createdAt: new Date(now - 60_000 + n).toISOString(),
        updatedAt: new Date(now - 60_000 + n).toISOString(),
        secret: shape.secret,
        ...(shape.retrySchedule ? { retrySchedule: [...shape.retrySchedule] } : {}),
      });
    }
    const eventIds = Array.from({ length: shape.events }, (_, n) => eventIdOf(n + 1));
    for (const [n, eventId] of eventIds.entries()) {
      const at = now - 30_000 + n;
      const deliveries = subscriptionIds.map((id) => attemptedFanOut(eventId, id, at, true));
      await store.indexDeliveries(deliveries);
      await store.putFanOuts([
        {
          event: {
            id: eventId,
            type: 'customer.updated',
            storedAt: at,
            body: JSON.stringify(changeEvent(eventId)),
          },
          deliveredAtOnce: [],
          others: deliveries.map((delivery) => ({
            delivery,
            attempts: [firstAttempt(delivery.id, at, 503)],
          })),
        },
      ]);
    }
    return { subscriptionIds, eventIds, deliveries: eventIds.length * subscriptionIds.length };
  } finally {
    await dynamo.close();
  }
}
