import { afterDeliveryWrite, dead, sendAttempt } from './attempt.ts';
import { fanOutDeliveryId, newDelivery } from './deliveries.ts';
import type { DispatchBatch } from './dispatch-batch.ts';
import type { DispatchEvent } from './messages.ts';
import { delaySecondsUntil } from './queue.ts';
import type { Attempt, Delivery, StoredEvent } from './store.ts';
import { matchesSubscription } from './subscription.ts';

/** An event from the queue, once per batch however many records carried it. */
export interface IncomingEvent {
  event: DispatchEvent;
  /** The body exactly as received: stored, signed and POSTed. */
  body: string;
  /** Message ids of the records that carried it. */
  recordIds: string[];
}

/** The first attempt of an event to one subscription, made in the fan-out's own invocation. */
export interface InlineDelivery {
  delivery: Delivery;
  body: string;
  recordIds: readonly string[];
  /**
   * Settles once the delivery is listed under its subscription (a write shared by the
   * batch); the delivery item is created only after, so none exists unlisted. Absent when
   * the delivery lists itself on creation.
   */
  listed?: Promise<void>;
}

/**
 * Stores the batch's events and plans one inline delivery per (event, enabled matching
 * subscription). A new event is stored with the ids of its deliveries, and all of them are
 * listed in two shared writes (event list; each subscription's delivery list), so a first
 * attempt that succeeds costs one more small write. An event stored before (SQS redelivered
 * the message, or the poller published it again) is idempotent: each delivery that exists
 * is left alone (a pending one gets a message again, in case the earlier run stopped before
 * sending it) and only missing ones are planned, with the stored body.
 * Records whose storage failed are marked failed in `batch`.
 */
export async function planFanOut(
  incoming: readonly IncomingEvent[],
  batch: DispatchBatch,
): Promise<InlineDelivery[]> {
  const { store, clock } = batch.deps;
  const now = clock.now();
  const allRecordIds = incoming.flatMap((item) => item.recordIds);
  let subscriptions: Awaited<ReturnType<DispatchBatch['subscriptions']>>;
  try {
    subscriptions = await batch.subscriptions();
  } catch (error) {
    batch.fail(allRecordIds, 'subscription lookup failed', error);
    return [];
  }
  const planned = incoming.map((item) => {
    const stored: StoredEvent = {
      id: item.event.id,
      type: item.event.type,
      storedAt: now,
      body: item.body,
    };
    const targets = [...subscriptions.values()].filter(
      (s) => s.enabled && matchesSubscription(s, item.event),
    );
    const deliveries = targets.map((s) =>
      newDelivery(fanOutDeliveryId(stored.id, s.id), stored.id, s.id, now),
    );
    return { item, stored, deliveries };
  });
  // Listed before stored: an event is never stored unlisted, and listing one twice is harmless.
  try {
    await store.indexEvents(planned.map((p) => p.stored));
  } catch (error) {
    batch.fail(allRecordIds, 'event listing failed', error);
    return [];
  }
  const stored = await Promise.all(
    planned.map(async (p) => {
      try {
        const created = await store.putEvent(p.stored, {
          fanOutDeliveryIds: p.deliveries.map((d) => d.id),
          deferListing: true,
        });
        return { ...p, created };
      } catch (error) {
        batch.fail(p.item.recordIds, 'storing the event failed', error);
        return undefined;
      }
    }),
  );
  const fresh = stored.filter((p) => p?.created === true);
  const repeated = stored.filter((p) => p?.created === false);
  const listed =
    fresh.length > 0 ? store.indexDeliveries(fresh.flatMap((p) => p!.deliveries)) : undefined;
  // Each inline delivery awaits `listed` itself; this keeps an unawaited failure from going unhandled.
  listed?.catch(() => undefined);
  const inline: InlineDelivery[] = fresh.flatMap((p) =>
    p!.deliveries.map((delivery) => ({
      delivery,
      body: p!.item.body,
      recordIds: p!.item.recordIds,
      listed,
    })),
  );
  const resumed = await Promise.all(
    repeated.map((p) => resumeFanOut(p!.item, p!.deliveries, batch)),
  );
  return [...inline, ...resumed.flat()];
}

/** The fan-out of an event stored before: missing deliveries are planned, pending ones re-enqueued. */
async function resumeFanOut(
  item: IncomingEvent,
  deliveries: readonly Delivery[],
  batch: DispatchBatch,
): Promise<InlineDelivery[]> {
  const { store, clock } = batch.deps;
  try {
    const storedEvent = await store.getEvent(item.event.id);
    const body = storedEvent?.body ?? item.body;
    const missing: InlineDelivery[] = [];
    for (const delivery of deliveries) {
      const existing = await store.getDelivery(delivery.id);
      if (!existing) {
        missing.push({ delivery, body, recordIds: item.recordIds });
      } else if (existing.status === 'pending') {
        batch.enqueue(
          { kind: 'delivery', deliveryId: existing.id, subscriptionId: existing.subscriptionId },
          delaySecondsUntil(existing.nextAttemptAt, clock.now()),
          item.recordIds,
        );
      }
    }
    return missing;
  } catch (error) {
    batch.fail(item.recordIds, 'resuming a fan-out failed', error);
    return [];
  }
}

/**
 * Makes the first attempt of a planned delivery and creates it, in one write, with the
 * attempt folded in: delivered, pending a retry (message enqueued), or dead-lettered. While
 * the endpoint is paused (`Retry-After`) no request is sent: the delivery is created pending
 * until the pause ends. A subscription disabled earlier in the batch dead-letters it.
 * Creation is conditional, so a concurrent duplicate cannot create it twice.
 */
export async function deliverInline(task: InlineDelivery, batch: DispatchBatch): Promise<void> {
  const { deps } = batch;
  const { store } = deps;
  const now = deps.clock.now();
  const subscription = await batch.subscription(task.delivery.subscriptionId);
  let next: Delivery;
  let log: Attempt[] | undefined;
  let deferred = false;
  if (!subscription?.enabled) {
    next = dead(
      task.delivery,
      subscription ? 'subscription disabled' : 'subscription removed',
      now,
    );
  } else {
    const endpoint = await batch.endpoint(subscription.id);
    if (endpoint.pausedUntil !== undefined && endpoint.pausedUntil > now) {
      next = { ...task.delivery, nextAttemptAt: endpoint.pausedUntil };
      deferred = true;
    } else {
      const sent = await sendAttempt(
        { delivery: task.delivery, log: [], subscription, body: task.body },
        batch,
      );
      next = sent.next;
      log = sent.log;
    }
  }
  if (task.listed) await task.listed;
  const created = await store.createDelivery(next, {
    attempts: log,
    deferListing: task.listed !== undefined,
  });
  if (!created) return;
  if (deferred) deps.metrics.count('deferred');
  await afterDeliveryWrite(next, batch, task.recordIds);
}
