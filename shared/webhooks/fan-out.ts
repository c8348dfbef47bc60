import { afterDeliveryWrite, dead, sendAttempt } from './attempt.ts';
import { fanOutDeliveryId, newDelivery } from './deliveries.ts';
import { deliveryStreamId } from './delivery-counter.ts';
import type { DispatchBatch } from './dispatch-batch.ts';
import type { DispatchEvent } from './messages.ts';
import { delaySecondsUntil } from './queue.ts';
import type { Attempt, Delivery, StoredEvent } from './store.ts';
import { matchesSubscription } from './subscription.ts';

/** What orders an event's deliveries: its subject, or the event itself when it has none. */
function subjectKey(event: DispatchEvent): string {
  return event.subject ?? event.id;
}

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
  /** The event's subject: deliveries of one subject to one endpoint go one at a time, in order. */
  subject: string;
  body: string;
  recordIds: readonly string[];
  /** The stream of the event (`undefined` for operational events), for the delivery counter. */
  streamId?: string | undefined;
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
  let created: Set<string>;
  try {
    created = await store.putEvents(
      planned.map((p) => ({
        event: p.stored,
        options: { fanOutDeliveryIds: p.deliveries.map((d) => d.id), deferListing: true },
      })),
    );
  } catch (error) {
    batch.fail(allRecordIds, 'storing the events failed', error);
    return [];
  }
  const stored = planned.map((p) => ({ ...p, created: created.has(p.stored.id) }));
  const fresh = stored.filter((p) => p?.created === true);
  const repeated = stored.filter((p) => p?.created === false);
  const listed =
    fresh.length > 0 ? store.indexDeliveries(fresh.flatMap((p) => p!.deliveries)) : undefined;
  // Each inline delivery awaits `listed` itself; this keeps an unawaited failure from going unhandled.
  listed?.catch(() => undefined);
  const inline: InlineDelivery[] = fresh.flatMap((p) =>
    p!.deliveries.map((delivery) => ({
      delivery,
      subject: subjectKey(p!.item.event),
      body: p!.item.body,
      recordIds: p!.item.recordIds,
      streamId: deliveryStreamId(p!.item.event),
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
        missing.push({
          delivery,
          subject: subjectKey(item.event),
          body,
          recordIds: item.recordIds,
          streamId: deliveryStreamId(item.event),
        });
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
    // Not before the endpoint's Retry-After, nor before this subject's earlier event, which
    // waits for a retry: a subject's events arrive in the order they were detected (it goes
    // a moment after that retry).
    const pausedUntil = Math.max(
      endpoint.pausedUntil ?? 0,
      deps.scheduler.pausedUntil(subscription.id) ?? 0,
    );
    const behind = deps.scheduler.retryingUntil(subscription.id, task.subject);
    const waitUntil = Math.max(pausedUntil, behind === undefined ? 0 : behind + 1);
    if (waitUntil > now) {
      next = { ...task.delivery, nextAttemptAt: waitUntil };
      deferred = true;
    } else {
      const sent = await sendAttempt(
        { delivery: task.delivery, log: [], subscription, body: task.body },
        batch,
      );
      next = sent.next;
      log = sent.log;
    }
    deps.scheduler.setRetrying(
      subscription.id,
      task.subject,
      next.status === 'pending' ? next.nextAttemptAt : undefined,
    );
  }
  // Written with the rest of the batch's new deliveries (writeInlineDeliveries): no write
  // between two sends.
  batch.stagedDeliveries.push({
    delivery: next,
    attempts: log,
    listed: task.listed,
    deferred,
    recordIds: task.recordIds,
    streamId: task.streamId,
  });
}

/**
 * Writes the batch's new deliveries together (their first attempt folded in), once each is
 * listed under its subscription, then schedules what follows each: a retry message, a dead
 * letter. Runs before the batch's queue messages are sent and its records acknowledged, so a
 * crash before it repeats the batch (at-least-once). On failure the records fail.
 */
export async function writeInlineDeliveries(batch: DispatchBatch): Promise<void> {
  const staged = batch.stagedDeliveries.splice(0);
  if (staged.length === 0) return;
  try {
    await Promise.all(staged.map((entry) => entry.listed));
    await batch.deps.store.createDeliveries(
      staged.map((entry) => ({
        delivery: entry.delivery,
        options: { attempts: entry.attempts, deferListing: entry.listed !== undefined },
      })),
    );
  } catch (error) {
    batch.fail(
      staged.flatMap((entry) => entry.recordIds),
      'writing the deliveries failed',
      error,
    );
    return;
  }
  for (const entry of staged) {
    if (entry.delivery.status === 'delivered') batch.delivered.count(entry.streamId);
    if (entry.deferred) batch.deps.metrics.count('deferred');
    await afterDeliveryWrite(entry.delivery, batch, entry.recordIds);
  }
}
