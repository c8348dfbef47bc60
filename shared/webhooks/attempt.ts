import { BridgeError } from '../errors.ts';
import type { DispatchLane } from '../publish/publisher.ts';
import { deliveryOrigin } from './delivery-counter.ts';
import {
  afterDeliveryWrite,
  dead,
  EARLY_ARRIVAL_SLACK_MS,
  noteNextAttemptInBatch,
  releaseNextOfSubject,
} from './delivery-follow-up.ts';
import type { DeliveryOutcome } from './delivery-outcome.ts';
import { DispatchBatch } from './dispatch-batch.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { DEADLINE_DEFER_MS } from './endpoint-lane-pump.ts';
import { endpointOfUrl } from './endpoint-of-url.ts';
import { subjectKey } from './event-subject.ts';
import { laneWaitedIn, type TurnDeferral } from './line-wait.ts';
import { type DispatchEvent, eventOfBody } from './messages.ts';
import { sendAttempt } from './send-attempt.ts';
import type { Delivery, DeliveryRecord } from './store.ts';
import type { Subscription } from './subscription.ts';

/** What a delivery message brings to its attempt (see {@link attemptDelivery}). */
export interface DeliveryMessageTask {
  /** The records of its queue messages (default: the delivery's id). */
  recordIds?: readonly string[];
  /** Its event's subject, when the message names it. */
  subject?: string | undefined;
  /** Started to defer itself for its turn in a slow endpoint's line (see TurnDeferral). */
  line?: TurnDeferral | undefined;
  /** The dispatch lane it was taken in: one the stop cuts off comes back as work of that lane. */
  lane?: DispatchLane | undefined;
  /** Sent ahead for a live change of its subject that waits behind it (see DeliveryMessage). */
  ahead?: boolean | undefined;
}

/** What handling one delivery came to. */
export type AttemptResult =
  | { kind: 'skipped'; reason: string }
  | { kind: 'deferred'; until: number }
  | { kind: 'attempted'; outcome: DeliveryOutcome };

/**
 * Handles one delivery message (a retry, a deferral, a replay): re-defers it while not due,
 * while its endpoint is paused or while an earlier delivery of its subject to the endpoint
 * waits for a later attempt (no request, no attempt counted), otherwise signs and
 * POSTs the stored event, folds the attempt into the delivery, updates the endpoint's health
 * and schedules what comes next. Safe to repeat: a delivery that is no longer pending is
 * skipped, and every delivery update is conditional on its version, so of two copies of a
 * message handled one after the other (a late one and the copy the overdue check sent again,
 * see OverdueWaitingChecks.resendIfPending) the second sends nothing once the first has
 * attempted; within a process copies are handled one after the other (one delivery of a
 * subject at a time, see EndpointScheduler), across processes both may read it pending and send. A copy
 * that comes before the delivery is due defers it and enqueues a message of its own (it may
 * be the one whose write won but whose message failed to send): its later retries then carry
 * two messages, the second finding each attempt made. Throws only on storage or queue
 * failure (SQS then retries the message). Without a `batch`, its queue messages are sent
 * before it returns.
 */
export async function attemptDelivery(
  deliveryId: string,
  deps: DispatcherDeps,
  batch?: DispatchBatch,
  message: DeliveryMessageTask = {},
): Promise<AttemptResult> {
  if (!batch) {
    const own = new DispatchBatch(deps);
    const result = await attemptDelivery(deliveryId, deps, own, message);
    await own.flush();
    if (own.failures.size > 0) {
      throw new BridgeError(`could not enqueue the next step of ${deliveryId}`, {
        retryable: true,
      });
    }
    return result;
  }
  const { store, clock } = deps;
  const { recordIds = [deliveryId], subject: messageSubject, line, lane, ahead } = message;
  const record = await store.getDeliveryRecord(deliveryId);
  if (!record) return { kind: 'skipped', reason: 'unknown delivery' };
  // Sent ahead for a live change behind it: live work from now on (its later messages too).
  const delivery = ahead ? asLiveWork(record.delivery) : record.delivery;
  const place: Place = { batch, recordIds, subject: messageSubject, line, lane };
  if (delivery.status !== 'pending') {
    noteNextAttemptInBatch(delivery, messageSubject, batch, true);
    return { kind: 'skipped', reason: `already ${delivery.status}` };
  }
  const now = clock.now();
  // Early: one sent ahead still waits for its retry's time, not for a deferral's.
  const early = delivery.nextAttemptAt > now + EARLY_ARRIVAL_SLACK_MS;
  if (early && (!ahead || waitsForItsRetry(record))) {
    return defer(delivery, delivery.nextAttemptAt, place);
  }
  const subscription = await batch.subscription(delivery.subscriptionId);
  if (!subscription?.enabled) {
    // Its event is read for its stream only here, where the delivery dies unsent.
    return deadForSubscription(delivery, subscription, now, place, async () => {
      const stored = await store.getEvent(delivery.eventId).catch(() => undefined);
      return stored === undefined ? undefined : eventOfBody(stored.body);
    });
  }
  // Strict: a paused endpoint gets no request before its Retry-After has passed, whichever
  // batch of this process learnt of the pause.
  // Nor while it would wait too long in a slow endpoint's line (`line`): not an attempt.
  const pausedBefore = Math.max(await endpointPausedUntil(subscription, batch), line?.until ?? 0);
  if (pausedBefore > now) return defer(delivery, pausedBefore, place);
  const event = await batch.storedEvent(delivery.eventId);
  if (!event) {
    const reason = 'event no longer stored';
    await update(dead({ ...delivery, version: delivery.version + 1 }, reason, now), place);
    return { kind: 'skipped', reason };
  }
  // The stored body is parsed at most once, for the subject (older messages lack it) or the stream.
  let parsed: { event: DispatchEvent | undefined } | undefined;
  const storedEvent = () => {
    parsed ??= { event: eventOfBody(event.body) };
    return parsed.event;
  };
  if (place.subject === undefined) {
    const stored = storedEvent();
    place.subject = stored === undefined ? undefined : subjectKey(stored);
  }
  // Not before this subject's earlier deliveries that wait for a later attempt.
  const after =
    place.subject === undefined
      ? undefined
      : await batch.notBefore(subscription.id, place.subject, delivery.id, lane === 'live');
  if (after !== undefined) return defer(delivery, after, place);
  // Again just before the request: a 429 may have come back while the event was read, or the
  // subscription been disabled (a 410 another delivery met, the admin API).
  const current = await batch.subscription(delivery.subscriptionId);
  if (!current?.enabled) {
    return deadForSubscription(delivery, current, clock.now(), place, async () => storedEvent());
  }
  const pausedUntil = await endpointPausedUntil(current, batch);
  if (pausedUntil > clock.now()) return defer(delivery, pausedUntil, place);
  const sent = await sendAttempt(
    { delivery, log: record.attempts, subscription: current, body: event.body },
    batch,
  );
  if (sent === 'stopped') {
    // Cut off by the process's stop: no attempt; due again as the next run starts, in its lane
    // (see deliverInline): waiting in its lane is what it does until then.
    const dueAt = clock.now() + DEADLINE_DEFER_MS;
    if (lane !== undefined) place.line = { until: dueAt, lane };
    return defer(delivery, dueAt, place);
  }
  noteNextAttemptInBatch(sent.next, place.subject, batch, true);
  if (await store.updateDelivery(sent.next, sent.log)) {
    if (sent.next.status !== 'pending') {
      const stored = storedEvent();
      batch.counts.count(
        stored === undefined ? undefined : deliveryOrigin(stored),
        sent.next.status === 'delivered' ? 'delivered' : 'dead',
      );
    }
    await afterDeliveryWrite(sent.next, batch, recordIds, place.subject, undefined, lane);
    if (sent.next.status !== 'pending') releaseNextOfSubject(sent.next, place.subject, batch);
  }
  return { kind: 'attempted', outcome: sent.outcome };
}

/**
 * Dead-letters a delivery whose subscription is disabled (or removed) before its request, and
 * counts it dead-lettered for its event's stream (a backfill waits for its webhooks to settle).
 */
async function deadForSubscription(
  delivery: Delivery,
  subscription: Subscription | undefined,
  now: number,
  place: Place,
  eventOf: () => Promise<DispatchEvent | undefined>,
): Promise<AttemptResult> {
  const reason = subscription ? 'subscription disabled' : 'subscription removed';
  if (await update(dead({ ...delivery, version: delivery.version + 1 }, reason, now), place)) {
    const event = await eventOf();
    place.batch.counts.count(event && deliveryOrigin(event), 'dead');
  }
  return { kind: 'skipped', reason };
}

/** `delivery` as live work: its record no longer names the bulk lane (see DeliverySchema.lane). */
function asLiveWork(delivery: Delivery): Delivery {
  if (delivery.lane === undefined) return delivery;
  const { lane: _bulk, ...live } = delivery;
  return live;
}

/**
 * Whether the delivery's due time is its retry's (the last attempt scheduled it), not a
 * deferral's (a pause, a turn in a slow endpoint's line), which moves it without an attempt.
 */
function waitsForItsRetry(record: DeliveryRecord): boolean {
  return record.attempts.at(-1)?.nextAttemptAt === record.delivery.nextAttemptAt;
}

/** Where a delivery message's work stands: its batch, its records, its event's subject if known. */
interface Place {
  batch: DispatchBatch;
  recordIds: readonly string[];
  subject: string | undefined;
  /** Started to defer itself for its turn in a slow endpoint's line (see TurnDeferral). */
  line?: TurnDeferral;
  /** The lane it was taken in: a bulk delivery's next message keeps it (see messageLane). */
  lane?: DispatchLane | undefined;
}

/**
 * Until when nothing may be sent to the endpoint (0: now), by its stored pause or this
 * process's scheduler (its pause, or a deferral for want of slots), or by the batch (its
 * deadline passed).
 */
async function endpointPausedUntil(
  subscription: Subscription,
  batch: DispatchBatch,
): Promise<number> {
  const endpoint = await batch.endpoint(subscription.id);
  return Math.max(
    endpoint.pausedUntil ?? 0,
    batch.deps.scheduler.holdUntil(endpointOfUrl(subscription.url)) ?? 0,
    batch.heldUntil(),
  );
}

/** Writes a delivery update (the attempt log kept) and what follows it, noted for its subject. */
async function update(delivery: Delivery, place: Place): Promise<boolean> {
  const { batch, recordIds, subject, line, lane } = place;
  noteNextAttemptInBatch(delivery, subject, batch, true);
  if (!(await batch.deps.store.updateDelivery(delivery))) return false;
  const inLine =
    delivery.status === 'pending'
      ? laneWaitedIn(line, delivery.nextAttemptAt, batch.deps.scheduler.stopping)
      : undefined;
  await afterDeliveryWrite(delivery, batch, recordIds, subject, inLine, lane);
  if (delivery.status !== 'pending') releaseNextOfSubject(delivery, subject, batch);
  return true;
}

async function defer(delivery: Delivery, until: number, place: Place): Promise<AttemptResult> {
  const updated = {
    ...delivery,
    nextAttemptAt: until,
    updatedAt: place.batch.deps.clock.now(),
    version: delivery.version + 1,
  };
  if (await update(updated, place)) place.batch.deps.metrics.count('deferred');
  return { kind: 'deferred', until };
}
