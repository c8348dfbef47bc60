import { hashEventId } from '../changes/event-id.ts';
import type { DeliveredAtOnce, DeliveryRecord } from './store.ts';

/**
 * Fan-out ids kept once worked out: a batch asks for each new delivery's a few times (planning
 * it, listing it, keeping it compactly), and a hash costs about 1.5 KB of garbage each time.
 * Beyond this many entries the memory starts over (about 1 MB at most).
 */
const RECENT_FAN_OUT_IDS_MAX_ENTRIES = 8192;
const recentFanOutIds = new Map<string, string>();

/**
 * The id of the fan-out delivery of an event to a subscription: deterministic, so a
 * repeated queue message (SQS delivers at least once) creates no second delivery, and a
 * delivery kept compactly needs no id stored. Pure (recent answers are remembered).
 */
export function fanOutDeliveryId(eventId: string, subscriptionId: string): string {
  // Length first: no two pairs of ids share a key.
  const key = `${subscriptionId.length}:${subscriptionId}${eventId}`;
  const known = recentFanOutIds.get(key);
  if (known !== undefined) return known;
  const id = `dlv_${hashEventId(['delivery/v1', eventId, subscriptionId]).slice('evt_'.length)}`;
  if (recentFanOutIds.size >= RECENT_FAN_OUT_IDS_MAX_ENTRIES) recentFanOutIds.clear();
  recentFanOutIds.set(key, id);
  return id;
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
