import { BridgeError } from '../errors.ts';
import type { DispatchLane } from '../publish/publisher.ts';
import { deliveryOrigin } from './delivery-counter.ts';
import { type DeliveryOutcome, decideOutcome, outcomePause } from './delivery-outcome.ts';
import { DispatchBatch } from './dispatch-batch.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { applyPause } from './endpoint-health.ts';
import { disableSubscription, recordHealth } from './endpoint-notices.ts';
import { endpointOfUrl } from './endpoint-of-url.ts';
import type { EndpointSignal } from './endpoint-scheduler.ts';
import { foldEndpointState } from './endpoint-state-fold.ts';
import { subjectKey } from './event-subject.ts';
import type { HttpAttemptResult } from './http-sender.ts';
import { laneWaitedIn, type TurnDeferral } from './line-wait.ts';
import { type DispatchEvent, deliveryMessage, eventOfBody } from './messages.ts';
import { activeSecrets, webhookHeaders } from './signing.ts';
import { type Attempt, appendAttempt, type Delivery } from './store.ts';
import type { Subscription } from './subscription.ts';

/** Slack for a message that arrives a little before its delivery is due (clock skew), in ms. */
const EARLY_ARRIVAL_SLACK_MS = 1000;

/** What handling one delivery came to. */
export type AttemptResult =
  | { kind: 'skipped'; reason: string }
  | { kind: 'deferred'; until: number }
  | { kind: 'attempted'; outcome: DeliveryOutcome };

/** One attempt's request and what it came to, ready to be written. */
export interface SentAttempt {
  /** The delivery after the attempt: delivered, pending a retry, or dead. */
  next: Delivery;
  /** The folded attempt log with this attempt appended. */
  log: Attempt[];
  outcome: DeliveryOutcome;
}

/**
 * Signs and POSTs one attempt of `delivery`, decides its outcome, folds it into the
 * endpoint's health (publishing `delivery.failing`/`delivery.recovered`, disabling on 410
 * or a too-long failure) and returns the delivery's next state. Writes no delivery: the
 * caller creates or updates it, then calls {@link afterDeliveryWrite}.
 */
export async function sendAttempt(
  input: { delivery: Delivery; log: readonly Attempt[]; subscription: Subscription; body: string },
  batch: DispatchBatch,
): Promise<SentAttempt> {
  const { deps } = batch;
  const { delivery, subscription, body } = input;
  const now = deps.clock.now();
  // The subscriptions are at hand once the answer is (the batch read them before): a pause it
  // asks for holds every subscription to the URL in this process with no await in between.
  const [result, subscriptions] = await Promise.all([
    deps.sender.send({
      url: subscription.url,
      body,
      headers: webhookHeaders({
        id: delivery.eventId,
        timestampSeconds: Math.floor(now / 1000),
        body,
        secrets: activeSecrets(subscription, now),
      }),
    }),
    batch.subscriptions(),
  ]);
  const attempts = delivery.attempts + 1;
  const doneAt = deps.clock.now();
  const outcome = decideOutcome(result, {
    attemptsMade: attempts,
    schedule: subscription.retrySchedule ?? deps.config.defaultRetrySchedule,
    nowMs: doneAt,
    random: deps.random,
    maxPauseMs: deps.config.maxPauseMs,
  });
  const log = appendAttempt(input.log, {
    deliveryId: delivery.id,
    attempt: attempts,
    at: now,
    status: result.kind === 'response' ? result.status : undefined,
    error: result.kind === 'error' ? `${result.error}: ${result.message}` : undefined,
    latencyMs: result.latencyMs,
    responseHeaders: result.kind === 'response' ? result.headers : {},
    responseBody: result.kind === 'response' ? result.body : '',
    outcome: outcome.kind,
    nextAttemptAt: outcome.kind === 'retry' ? outcome.at : undefined,
  });

  // The URL's limit and pause: every subscription that posts there shares them in the scheduler.
  const endpoint = endpointOfUrl(subscription.url);
  deps.scheduler.record(endpoint, endpointSignal(result), now);
  const pauseUntil = outcomePause(outcome);
  const sameUrl = pauseUntil === undefined ? [] : othersAtUrl(subscription, subscriptions);
  if (pauseUntil !== undefined) deps.scheduler.pause(endpoint, pauseUntil);
  // The answered subscription's pause is stored first, waiting for no other subscription's write.
  const health = await recordHealth(
    subscription,
    await batch.endpoint(subscription.id),
    outcome,
    deps,
  );
  batch.setEndpoint(health.state);
  if (pauseUntil !== undefined) await storeSameUrlPause(sameUrl, pauseUntil, batch);
  if (health.disabled) await batch.markDisabled(subscription.id);
  const attempted: Delivery = {
    ...delivery,
    attempts,
    updatedAt: doneAt,
    lastStatus: result.kind === 'response' ? result.status : undefined,
    lastError: result.kind === 'error' ? result.error : undefined,
    version: delivery.version + 1,
  };
  switch (outcome.kind) {
    case 'delivered':
      deps.metrics.count('delivered');
      return { next: { ...attempted, status: 'delivered' }, log, outcome };
    case 'retry':
      deps.metrics.count('failed');
      deps.metrics.count('retried');
      return { next: { ...attempted, nextAttemptAt: outcome.at }, log, outcome };
    case 'gone': {
      deps.metrics.count('failed');
      const reason = 'endpoint answered 410 Gone';
      await disableSubscription(subscription.id, reason, deps);
      await batch.markDisabled(subscription.id);
      return { next: dead(attempted, reason, doneAt), log, outcome };
    }
    case 'rejected':
      deps.metrics.count('failed');
      return { next: dead(attempted, outcome.reason, doneAt), log, outcome };
  }
}

/**
 * The other enabled subscriptions that post to the same URL as `subscription`: a `Retry-After`
 * answered to it is theirs too, since the receiver there asked every request to wait, not only
 * one subscription's (design.md: a 429 or 503 with `Retry-After` pauses that whole endpoint).
 */
function othersAtUrl(
  subscription: Subscription,
  subscriptions: ReadonlyMap<string, Subscription>,
): Subscription[] {
  return [...subscriptions.values()].filter(
    (other) => other.id !== subscription.id && other.enabled && other.url === subscription.url,
  );
}

/**
 * Stores a pause until `untilMs` in the endpoint states of `others` (see {@link othersAtUrl}),
 * where other processes learn it; no failure is counted against them. This process's scheduler
 * holds them already (sendAttempt pauses them there as soon as the answer is read).
 */
async function storeSameUrlPause(
  others: readonly Subscription[],
  untilMs: number,
  batch: DispatchBatch,
): Promise<void> {
  const { deps } = batch;
  await Promise.all(
    others.map(async (other) => {
      const known = await batch.endpoint(other.id);
      const { state } = await deps.endpointWrites.run(other.id, () =>
        foldEndpointState(deps.store, known, (current) => applyPause(current, untilMs)),
      );
      batch.setEndpoint(state);
    }),
  );
}

/** What a request's result says of the endpoint's load: 429, 503 and timeouts mean overloaded. */
function endpointSignal(result: HttpAttemptResult): EndpointSignal {
  if (result.kind === 'error') return result.error === 'timeout' ? 'overloaded' : 'failure';
  if (result.status === 429 || result.status === 503) return 'overloaded';
  return result.status >= 200 && result.status < 300 ? 'success' : 'failure';
}

/** `delivery` dead-lettered for `reason` at `atMs` (version unchanged: the caller sets it). */
export function dead(delivery: Delivery, reason: string, atMs: number): Delivery {
  return { ...delivery, status: 'dead', deadReason: reason, deadAt: atMs, updatedAt: atMs };
}

/**
 * What follows a delivery write that won: a retry message for a pending delivery, the
 * dead-letter listing for a dead one. `recordIds` fail if the message cannot be sent.
 */
export async function afterDeliveryWrite(
  written: Delivery,
  batch: DispatchBatch,
  recordIds: readonly string[],
  subject?: string,
  inLine?: DispatchLane,
): Promise<void> {
  const { deps } = batch;
  if (written.status === 'pending') {
    batch.enqueue(deliveryMessage(written, subject, inLine), written.nextAttemptAt, recordIds);
  } else if (written.status === 'dead') {
    await deps.store.addDeadLetter(written);
    deps.metrics.count('deadLettered');
  }
}

/**
 * Notes in the process's scheduler whether a delivery of `subject` still waits for a later
 * attempt (pending) or no longer (delivered, dead): a subject's later events wait behind the
 * waiting ones (see EndpointScheduler.dueAhead). A delivery whose subject is not known keeps
 * no place.
 */
export function noteNextAttempt(
  next: Delivery,
  subject: string | undefined,
  deps: DispatcherDeps,
): void {
  if (subject === undefined) return;
  if (next.status === 'pending')
    deps.scheduler.noteWaiting(next.subscriptionId, subject, next.id, next.nextAttemptAt);
  else deps.scheduler.noteSettled(next.subscriptionId, subject, next.id);
}

/**
 * {@link noteNextAttempt}, and the same for the batch's waiting ledger (see
 * DispatchBatch.shareWaiting): `waited` says the delivery was pending before (a retry, a
 * deferral), so that it is removed from the ledger once settled.
 */
export function noteNextAttemptInBatch(
  next: Delivery,
  subject: string | undefined,
  batch: DispatchBatch,
  waited: boolean,
): void {
  noteNextAttempt(next, subject, batch.deps);
  batch.shareWaiting(next, subject, waited);
}

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
  recordIds: readonly string[] = [deliveryId],
  messageSubject?: string,
  line?: TurnDeferral,
): Promise<AttemptResult> {
  if (!batch) {
    const own = new DispatchBatch(deps);
    const result = await attemptDelivery(deliveryId, deps, own, recordIds, messageSubject, line);
    await own.flush();
    if (own.failures.size > 0) {
      throw new BridgeError(`could not enqueue the next step of ${deliveryId}`, {
        retryable: true,
      });
    }
    return result;
  }
  const { store, clock } = deps;
  const record = await store.getDeliveryRecord(deliveryId);
  if (!record) return { kind: 'skipped', reason: 'unknown delivery' };
  const { delivery } = record;
  const place: Place = { batch, recordIds, subject: messageSubject, line };
  if (delivery.status !== 'pending') {
    noteNextAttemptInBatch(delivery, messageSubject, batch, true);
    return { kind: 'skipped', reason: `already ${delivery.status}` };
  }
  const now = clock.now();
  if (delivery.nextAttemptAt > now + EARLY_ARRIVAL_SLACK_MS) {
    return defer(delivery, delivery.nextAttemptAt, place);
  }
  const subscription = await batch.subscription(delivery.subscriptionId);
  if (!subscription?.enabled) {
    const reason = subscription ? 'subscription disabled' : 'subscription removed';
    if (await update(dead({ ...delivery, version: delivery.version + 1 }, reason, now), place)) {
      // Counted as dead-lettered for its stream (a backfill waits for its webhooks to settle):
      // the event is read for its stream only here, where a delivery dies unsent.
      const stored = await store.getEvent(delivery.eventId).catch(() => undefined);
      const parsedEvent = stored === undefined ? undefined : eventOfBody(stored.body);
      batch.counts.count(parsedEvent && deliveryOrigin(parsedEvent), 'dead');
    }
    return { kind: 'skipped', reason };
  }
  // Strict: a paused endpoint gets no request before its Retry-After has passed, whichever
  // batch of this process learnt of the pause.
  // Nor while it would wait too long in a slow endpoint's line (`line`): not an attempt.
  const pausedBefore = Math.max(await endpointPausedUntil(subscription, batch), line?.until ?? 0);
  if (pausedBefore > now) return defer(delivery, pausedBefore, place);
  const event = await store.getEvent(delivery.eventId);
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
      : await batch.notBefore(subscription.id, place.subject, delivery.id);
  if (after !== undefined) return defer(delivery, after, place);
  // Again just before the request: a 429 may have come back while the event was read, or the
  // subscription been disabled (a 410 another delivery met, the admin API).
  const current = await batch.subscription(delivery.subscriptionId);
  if (!current?.enabled) {
    const reason = current ? 'subscription disabled' : 'subscription removed';
    await update(dead({ ...delivery, version: delivery.version + 1 }, reason, clock.now()), place);
    return { kind: 'skipped', reason };
  }
  const pausedUntil = await endpointPausedUntil(current, batch);
  if (pausedUntil > clock.now()) return defer(delivery, pausedUntil, place);
  const sent = await sendAttempt(
    { delivery, log: record.attempts, subscription: current, body: event.body },
    batch,
  );
  noteNextAttemptInBatch(sent.next, place.subject, batch, true);
  if (await store.updateDelivery(sent.next, sent.log)) {
    if (sent.next.status !== 'pending') {
      const stored = storedEvent();
      batch.counts.count(
        stored === undefined ? undefined : deliveryOrigin(stored),
        sent.next.status === 'delivered' ? 'delivered' : 'dead',
      );
    }
    await afterDeliveryWrite(sent.next, batch, recordIds, place.subject);
  }
  return { kind: 'attempted', outcome: sent.outcome };
}

/** Where a delivery message's work stands: its batch, its records, its event's subject if known. */
interface Place {
  batch: DispatchBatch;
  recordIds: readonly string[];
  subject: string | undefined;
  /** Started to defer itself for its turn in a slow endpoint's line (see TurnDeferral). */
  line?: TurnDeferral;
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
  const { batch, recordIds, subject, line } = place;
  noteNextAttemptInBatch(delivery, subject, batch, true);
  if (!(await batch.deps.store.updateDelivery(delivery))) return false;
  const inLine =
    delivery.status === 'pending' ? laneWaitedIn(line, delivery.nextAttemptAt) : undefined;
  await afterDeliveryWrite(delivery, batch, recordIds, subject, inLine);
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
