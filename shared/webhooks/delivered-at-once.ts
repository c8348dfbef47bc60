import { hashEventId } from '../changes/event-id.ts';
import type { DeliveredAtOnce, DeliveryRecord } from './store.ts';

/**
 * The id of the fan-out delivery of an event to a subscription: deterministic, so a
 * repeated queue message (SQS delivers at least once) creates no second delivery, and a
 * delivery kept compactly needs no id stored.
 */
export function fanOutDeliveryId(eventId: string, subscriptionId: string): string {
  return `dlv_${hashEventId(['delivery/v1', eventId, subscriptionId]).slice('evt_'.length)}`;
}

/**
 * The compact form of a new fan-out delivery of an event stored at `storedAtMs`, when it was
 * delivered at its first attempt; `undefined` for any other (it keeps an item of its own). Pure.
 * @example compactDelivery(record, event.storedAt) // { id, subscriptionId, at, latencyMs, status }
 */
export function compactDelivery(
  record: DeliveryRecord,
  storedAtMs: number,
): DeliveredAtOnce | undefined {
  const { delivery, attempts } = record;
  const [first] = attempts;
  const atOnce =
    delivery.status === 'delivered' &&
    delivery.attempts === 1 &&
    delivery.version === 2 &&
    delivery.createdAt === storedAtMs &&
    delivery.nextAttemptAt === storedAtMs &&
    delivery.id === fanOutDeliveryId(delivery.eventId, delivery.subscriptionId) &&
    attempts.length === 1 &&
    first?.outcome === 'delivered' &&
    first.status !== undefined;
  if (!atOnce) return undefined;
  return {
    id: delivery.id,
    subscriptionId: delivery.subscriptionId,
    at: first.at,
    latencyMs: first.latencyMs,
    status: first.status!,
  };
}

/**
 * The delivery and attempt a {@link DeliveredAtOnce} of event `eventId` (stored at
 * `storedAtMs`) stands for; `updatedAt` is the attempt's end (start plus latency). Pure.
 */
export function expandDeliveredAtOnce(
  eventId: string,
  storedAtMs: number,
  entry: DeliveredAtOnce,
): DeliveryRecord {
  return {
    delivery: {
      id: entry.id,
      eventId,
      subscriptionId: entry.subscriptionId,
      status: 'delivered',
      attempts: 1,
      nextAttemptAt: storedAtMs,
      createdAt: storedAtMs,
      updatedAt: entry.at + entry.latencyMs,
      version: 2,
      lastStatus: entry.status,
    },
    attempts: [
      {
        deliveryId: entry.id,
        attempt: 1,
        at: entry.at,
        status: entry.status,
        latencyMs: entry.latencyMs,
        responseHeaders: {},
        responseBody: '',
        outcome: 'delivered',
      },
    ],
  };
}
