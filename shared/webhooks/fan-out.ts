import type { DispatchLane } from '../publish/publisher.ts';
import { compactDelivery, fanOutDeliveryId } from './delivered-at-once.ts';
import { newDelivery } from './deliveries.ts';
import { type DeliveryOrigin, deliveryOrigin } from './delivery-counter.ts';
import { afterDeliveryWrite, dead, noteNextAttemptInBatch } from './delivery-follow-up.ts';
import type { DispatchBatch, StagedDelivery } from './dispatch-batch.ts';
import { endpointOfUrl } from './endpoint-of-url.ts';
import { subjectKey } from './event-subject.ts';
import { laneWaitedIn, type TurnDeferral } from './line-wait.ts';
import { type DispatchEvent, deliveryMessage, eventOfBody } from './messages.ts';
import { sendAttempt } from './send-attempt.ts';
import type {
  Attempt,
  DeliveredAtOnce,
  Delivery,
  DeliveryRecord,
  FanOutWrite,
  StoredEvent,
  StoredEventRecord,
} from './store.ts';
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
  /** The event's subject: deliveries of one subject to one endpoint go one at a time, in order. */
  subject: string;
  body: string;
  recordIds: readonly string[];
  /** The stream and detection instant of the event (`undefined` for operational events), for the delivery counter. */
  origin?: DeliveryOrigin | undefined;
  /**
   * Settles once the delivery is listed under its subscription (a write shared by the
   * batch); the delivery item is created only after, so none exists unlisted. Absent when
   * the delivery lists itself on creation.
   */
  listed?: Promise<void>;
}

/**
 * Plans the batch's events: one inline delivery per (new event, enabled matching
 * subscription). Events are looked up in one read: a new event is stored only after its first
 * attempts, once, with their outcome folded into its item ({@link writeInlineDeliveries}), and
 * it is listed, and its deliveries under their subscriptions, in shared writes meanwhile. An event stored before (SQS redelivered the message, or the poller
 * published it again) is idempotent: each delivery recorded is left alone (a pending one gets a
 * message again, in case the earlier run stopped before sending it) and only missing ones are
 * planned, with the stored body. Records whose storage failed are marked failed in `batch`.
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
  let known: Map<string, StoredEventRecord>;
  try {
    known = await store.getEventRecords(planned.map((p) => p.stored.id));
  } catch (error) {
    batch.fail(allRecordIds, 'reading the events failed', error);
    return [];
  }
  const fresh = planned.filter((p) => !known.has(p.stored.id));
  const repeated = planned.filter((p) => known.has(p.stored.id));
  // Only new events are listed, at their `storedAt`: an event published again keeps its one
  // place in the list (a second listing would put it first with its old `storedAt`, out of
  // order for `GET /feed?since=` and `events list`). Listed before stored (writeInlineDeliveries
  // awaits this): an event is never stored unlisted.
  let listed: Promise<void> | undefined;
  if (fresh.length > 0) {
    listed = Promise.all([
      store.indexEvents(fresh.map((p) => p.stored)),
      store.indexDeliveries(fresh.flatMap((p) => p.deliveries)),
    ]).then(() => undefined);
    // Awaited before the batch's writes; this keeps an unawaited failure from going unhandled.
    listed.catch(() => undefined);
    for (const p of fresh)
      batch.freshEvents.set(p.stored.id, {
        event: p.stored,
        recordIds: p.item.recordIds,
        listed,
        origin: deliveryOrigin(p.item.event),
      });
  }
  const inline: InlineDelivery[] = fresh.flatMap((p) =>
    p.deliveries.map((delivery) => ({
      delivery,
      subject: subjectKey(p.item.event),
      body: p.item.body,
      recordIds: p.item.recordIds,
      origin: deliveryOrigin(p.item.event),
      listed,
    })),
  );
  const resumed = await Promise.all(
    repeated.map((p) => resumeFanOut(p.item, p.deliveries, known.get(p.stored.id)!, batch)),
  );
  return [...inline, ...resumed.flat()];
}

/**
 * The fan-out of an event stored before: deliveries it recorded are left alone (pending ones
 * re-enqueued), missing ones are planned.
 */
async function resumeFanOut(
  item: IncomingEvent,
  deliveries: readonly Delivery[],
  record: StoredEventRecord,
  batch: DispatchBatch,
): Promise<InlineDelivery[]> {
  const { store } = batch.deps;
  const deliveredAtOnce = new Set(record.deliveredAtOnce.map((d) => d.id));
  // Its deliveries count at the detection instant of the body stored and sent, as their retries do.
  let storedOrigin: { origin: DeliveryOrigin | undefined } | undefined;
  const originOfStored = () => {
    const stored = eventOfBody(record.event.body);
    storedOrigin ??= { origin: stored && deliveryOrigin(stored) };
    return storedOrigin.origin;
  };
  try {
    const missing: InlineDelivery[] = [];
    for (const delivery of deliveries) {
      if (deliveredAtOnce.has(delivery.id)) continue;
      const existing = await store.getDelivery(delivery.id);
      if (!existing) {
        missing.push({
          delivery,
          subject: subjectKey(item.event),
          body: record.event.body,
          recordIds: item.recordIds,
          origin: originOfStored(),
        });
      } else if (existing.status === 'pending') {
        batch.enqueue(
          deliveryMessage(existing, subjectKey(item.event)),
          existing.nextAttemptAt,
          item.recordIds,
        );
      }
    }
    // Published again (a poll whose save lost to a reset or a backfill finds the change again,
    // under its id, at a later instant): counted as handed on at that instant too, as the
    // poller counts it published again, so a backfill waits for no event that never comes.
    batch.counts.count(deliveryOrigin(item.event), 'events');
    return missing;
  } catch (error) {
    batch.fail(item.recordIds, 'resuming a fan-out failed', error);
    return [];
  }
}

/**
 * Makes the first attempt of a planned delivery and creates it, in one write, with the
 * attempt folded in: delivered, pending a retry (message enqueued), or dead-lettered. While
 * the endpoint is paused (`Retry-After`), or `line` is given (it would wait too long in a slow
 * endpoint's line), no request is sent: the delivery is created pending until then, its message
 * marked as waiting in that line when its turn there is what it waits for. A subscription disabled earlier in the batch dead-letters
 * it.
 * Creation is conditional, so a concurrent duplicate cannot create it twice.
 */
export async function deliverInline(
  task: InlineDelivery,
  batch: DispatchBatch,
  line?: TurnDeferral,
): Promise<void> {
  const { deps } = batch;
  const now = deps.clock.now();
  const subscription = await batch.subscription(task.delivery.subscriptionId);
  let next: Delivery;
  let log: Attempt[] | undefined;
  let deferred = false;
  let inLine: DispatchLane | undefined;
  if (!subscription?.enabled) {
    next = dead(
      task.delivery,
      subscription ? 'subscription disabled' : 'subscription removed',
      now,
    );
  } else {
    const endpoint = await batch.endpoint(subscription.id);
    // Not before the endpoint's Retry-After (nor this process's deferral for want of slots),
    // nor before this subject's earlier events that wait for a later attempt: a subject's events
    // arrive in the order they were detected (it goes just after the last of them).
    const pausedUntil = Math.max(
      endpoint.pausedUntil ?? 0,
      deps.scheduler.holdUntil(endpointOfUrl(subscription.url)) ?? 0,
      line?.until ?? 0,
    );
    const after = await batch.notBefore(subscription.id, task.subject, task.delivery.id);
    // Nor after the batch's deadline (an invocation's end nears): another one sends it.
    const waitUntil = Math.max(pausedUntil, after ?? 0, batch.heldUntil());
    // Disabled meanwhile (a 410 another delivery met, the admin API): no request.
    const current = await batch.subscription(subscription.id);
    if (!current?.enabled) {
      const reason = current ? 'subscription disabled' : 'subscription removed';
      next = dead(task.delivery, reason, deps.clock.now());
    } else if (waitUntil > now) {
      next = { ...task.delivery, nextAttemptAt: waitUntil };
      deferred = true;
      inLine = laneWaitedIn(line, waitUntil);
    } else {
      const sent = await sendAttempt(
        { delivery: task.delivery, log: [], subscription: current, body: task.body },
        batch,
      );
      next = sent.next;
      log = sent.log;
    }
  }
  noteNextAttemptInBatch(next, task.subject, batch, false);
  // Written with the rest of the batch's new deliveries (writeInlineDeliveries): no write
  // between two sends.
  batch.stagedDeliveries.push({
    delivery: next,
    attempts: log,
    listed: task.listed,
    deferred,
    inLine,
    subject: task.subject,
    recordIds: task.recordIds,
    origin: task.origin,
  });
}

/**
 * Stores the batch's new events with the outcome of their first attempts, together
 * ({@link WebhookStore.putFanOuts}: a delivery that succeeded at once is folded into its event's
 * item, any other gets an item of its own), once their deliveries are listed under their
 * subscriptions; a missing delivery of an event stored before is created on its own. Then
 * schedules what follows each delivery: a retry message, a dead letter. Runs before the batch's
 * queue messages are sent and its records acknowledged, so a crash before it repeats the batch
 * (at-least-once). On failure the records fail.
 */
export async function writeInlineDeliveries(batch: DispatchBatch): Promise<void> {
  const staged = batch.stagedDeliveries.splice(0);
  const fresh = [...batch.freshEvents.values()];
  batch.freshEvents.clear();
  if (staged.length === 0 && fresh.length === 0) return;
  const byEvent = new Map(fresh.map(({ event }) => [event.id, [] as StagedDelivery[]]));
  const resumed: StagedDelivery[] = [];
  for (const entry of staged) {
    const own = byEvent.get(entry.delivery.eventId);
    if (own) own.push(entry);
    else resumed.push(entry);
  }
  const writes: FanOutWrite[] = fresh.map(({ event }) =>
    fanOutWrite(event, byEvent.get(event.id)!),
  );
  // A missing delivery that a concurrent batch created meanwhile is that batch's to follow up.
  const lost = new Set<StagedDelivery>();
  try {
    await Promise.all([...staged, ...fresh].map((entry) => entry.listed));
    await Promise.all([
      batch.deps.store.putFanOuts(writes),
      ...resumed.map(async (entry) => {
        const options = { attempts: entry.attempts };
        if (!(await batch.deps.store.createDelivery(entry.delivery, options))) lost.add(entry);
      }),
    ]);
  } catch (error) {
    batch.fail(
      [...fresh.flatMap((entry) => entry.recordIds), ...staged.flatMap((entry) => entry.recordIds)],
      'writing the events and deliveries failed',
      error,
    );
    return;
  }
  for (const { origin } of fresh) batch.counts.count(origin, 'events');
  for (const entry of staged) {
    if (lost.has(entry)) continue;
    batch.counts.count(entry.origin, 'created');
    if (entry.delivery.status === 'delivered') batch.counts.count(entry.origin, 'delivered');
    if (entry.delivery.status === 'dead') batch.counts.count(entry.origin, 'dead');
    if (entry.deferred) batch.deps.metrics.count('deferred');
    await afterDeliveryWrite(entry.delivery, batch, entry.recordIds, entry.subject, entry.inLine);
  }
}

/** An event's write: its deliveries that succeeded at once folded in, the others on their own. */
function fanOutWrite(event: StoredEvent, deliveries: readonly StagedDelivery[]): FanOutWrite {
  const deliveredAtOnce: DeliveredAtOnce[] = [];
  const others: DeliveryRecord[] = [];
  for (const { delivery, attempts } of deliveries) {
    const record: DeliveryRecord = { delivery, attempts: attempts ?? [] };
    const compact = compactDelivery(record, event.storedAt);
    if (compact) deliveredAtOnce.push(compact);
    else others.push(record);
  }
  return { event, deliveredAtOnce, others };
}
