import { noteNextAttempt } from '../webhooks/delivery-follow-up.ts';
import type { DispatcherDeps } from '../webhooks/dispatcher-deps.ts';
import { subjectOfBody } from '../webhooks/event-subject.ts';
import {
  DeliveryMessageSchema,
  type DispatchEvent,
  deliveryMessage,
  eventOfBody,
} from '../webhooks/messages.ts';
import { delaySecondsUntil } from '../webhooks/queue.ts';
import type { Delivery } from '../webhooks/store.ts';

/**
 * Deliveries listed per subscription when recovering (the store's listing bound): the newest
 * ones, where a delivery whose message was never sent (the process stopped between its write
 * and its send) is found.
 */
const RECOVERY_LIST_LIMIT = 1000;

/** Deliveries read from the store at once while recovering. */
const RECOVERY_READS_AT_ONCE = 100;

/**
 * What every delivery message's body holds (its JSON, as the queue adapters write it): a pass
 * over the queue decodes only the bodies holding it (an envelope that holds it deeper down is
 * then skipped by the parse), not a backlog of envelopes.
 */
export const DELIVERY_MESSAGE_MARKER = JSON.stringify({ kind: 'delivery' }).slice(1, -1);

/**
 * Deliveries whose message waits in the dispatch queue: per delivery id, the subject one of its
 * messages names (undefined when none does: a message of an older version).
 */
export type QueuedDeliveries = ReadonlyMap<string, string | undefined>;

/**
 * The deliveries named by the delivery messages among `bodies` (queue message bodies; the
 * others, envelopes of events not yet fanned out, are skipped), each with its subject. Pure.
 * @example queuedDeliveries([JSON.stringify(deliveryMessage({ id: 'd1', subscriptionId: 's1' }, 'c-1'))]) // d1 → c-1
 */
export function queuedDeliveries(bodies: Iterable<string>): Map<string, string | undefined> {
  const queued = new Map<string, string | undefined>();
  for (const body of bodies) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      continue;
    }
    const message = DeliveryMessageSchema.safeParse(parsed).data;
    if (message === undefined) continue;
    queued.set(message.deliveryId, message.subject ?? queued.get(message.deliveryId));
  }
  return queued;
}

/**
 * Tells the endpoint scheduler which deliveries of each subject wait for a later attempt,
 * oldest first, so a subject's new events still wait behind them after a restart (its order
 * holds across one), and re-enqueues those whose message the queue no longer holds. Which
 * deliveries wait comes from two places: the delivery messages waiting in the dispatch queue
 * (`queued`: on disk, every pending delivery has one, however old, each read back here), and
 * the newest deliveries of each subscription, for a pending one whose message was lost (with an
 * older in-memory queue) or never sent. A delivery no longer pending (its message not yet
 * deleted) is left to its message. Returns how many were enqueued.
 *
 * A long one (1,000 subscriptions: seconds) checks `stopSignal` between its reads and between its
 * sends, and throws its reason once it is aborted. Cut short, it has written nothing half: each
 * delivery it enqueued is whole in the queue, the rest are still pending in the store, and the
 * next recovery finds both (the first among `queued`).
 */
export async function requeuePendingDeliveries(
  deps: DispatcherDeps,
  queued: QueuedDeliveries = new Map(),
  stopSignal?: AbortSignal,
): Promise<number> {
  const pending = new Map<string, Delivery>();
  for (const subscription of await deps.store.listSubscriptions()) {
    stopSignal?.throwIfAborted();
    for (const delivery of await deps.store.listPendingDeliveries(
      subscription.id,
      RECOVERY_LIST_LIMIT,
    ))
      pending.set(delivery.id, delivery);
  }
  const unread = [...queued.keys()].filter((id) => !pending.has(id));
  for (let first = 0; first < unread.length; first += RECOVERY_READS_AT_ONCE) {
    stopSignal?.throwIfAborted();
    const ids = unread.slice(first, first + RECOVERY_READS_AT_ONCE);
    for (const delivery of await Promise.all(ids.map((id) => deps.store.getDelivery(id))))
      if (delivery?.status === 'pending') pending.set(delivery.id, delivery);
  }
  const oldestFirst = await inEventOrder(
    [...pending.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)),
    queued,
    deps,
  );
  let requeued = 0;
  for (const delivery of oldestFirst) {
    stopSignal?.throwIfAborted();
    const subject = queued.get(delivery.id) ?? (await storedSubject(delivery, deps));
    noteNextAttempt(delivery, subject, deps);
    if (queued.has(delivery.id)) continue;
    await deps.queue.send(
      deliveryMessage(delivery, subject),
      delaySecondsUntil(delivery.nextAttemptAt, deps.clock.now()),
    );
    requeued++;
  }
  return requeued;
}

/**
 * `deliveries` (sorted by `createdAt`) with those of one subscription and subject created at
 * the same instant (in one batch) put in their events' order: by detection time, and of one
 * poll a `created` first (a backfill's `created` a live poll sent just ahead of the change it
 * saw). Ordered by their ids instead, a change went ahead of that `created` after a restart (the
 * soak with --backfill-after: the change waited behind the `created`'s retry, and the restart
 * noted them the other way round). Only such ties have their events read; a delivery whose
 * message names no subject (an older version's) keeps its place.
 */
async function inEventOrder(
  deliveries: Delivery[],
  queued: QueuedDeliveries,
  deps: DispatcherDeps,
): Promise<Delivery[]> {
  const ordered: Delivery[] = [];
  for (let first = 0; first < deliveries.length; ) {
    let end = first + 1;
    while (end < deliveries.length && deliveries[end]!.createdAt === deliveries[first]!.createdAt)
      end++;
    const sameInstant = deliveries.slice(first, end);
    first = end;
    const tied = tiedOfOneSubject(sameInstant, queued);
    if (tied.length === 0) {
      ordered.push(...sameInstant);
      continue;
    }
    const order = new Map<string, EventOrder>();
    await Promise.all(
      tied.map(async (delivery) => {
        const stored = await deps.store.getEvent(delivery.eventId).catch(() => undefined);
        order.set(delivery.id, eventOrderOf(stored && eventOfBody(stored.body)));
      }),
    );
    // The tied ones take the places they held among the others, in their events' order.
    const places = sameInstant.flatMap((delivery, index) =>
      order.has(delivery.id) ? [index] : [],
    );
    const inOrder = [...tied].sort((a, b) => compareEventOrder(order.get(a.id)!, order.get(b.id)!));
    places.forEach((place, index) => {
      sameInstant[place] = inOrder[index]!;
    });
    ordered.push(...sameInstant);
  }
  return ordered;
}

/** Of deliveries created at one instant, those sharing their subscription and subject with another. */
function tiedOfOneSubject(sameInstant: Delivery[], queued: QueuedDeliveries): Delivery[] {
  const keyOf = (delivery: Delivery) => {
    const subject = queued.get(delivery.id);
    return subject === undefined ? undefined : `${delivery.subscriptionId} ${subject}`;
  };
  const counts = new Map<string, number>();
  for (const delivery of sameInstant) {
    const key = keyOf(delivery);
    if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return sameInstant.filter((delivery) => (counts.get(keyOf(delivery) ?? '') ?? 0) > 1);
}

/** Where an event stands in its subject's order: its detection time, a `created` first. */
interface EventOrder {
  at: number;
  created: boolean;
}

/** The {@link EventOrder} of a stored event (gone or unreadable: after every other). Pure. */
function eventOrderOf(event: DispatchEvent | undefined): EventOrder {
  const at = event?.time === undefined ? Number.NaN : Date.parse(event.time);
  return {
    at: Number.isNaN(at) ? Number.POSITIVE_INFINITY : at,
    created: event?.type.endsWith('.created') ?? false,
  };
}

/** Orders two events of a subject. Pure. */
function compareEventOrder(a: EventOrder, b: EventOrder): number {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  return Number(b.created) - Number(a.created);
}

/** The subject of a delivery's stored event; undefined when the event is gone. */
async function storedSubject(
  delivery: Delivery,
  deps: DispatcherDeps,
): Promise<string | undefined> {
  const event = await deps.store.getEvent(delivery.eventId);
  return event === undefined ? undefined : subjectOfBody(event.body);
}
