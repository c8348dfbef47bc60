import { withMembers } from '../with-members.ts';
import { dead } from './delivery-follow-up.ts';
import { type DeliveryOutcome, decideOutcome, outcomePause } from './delivery-outcome.ts';
import type { DispatchBatch } from './dispatch-batch.ts';
import { applyPause } from './endpoint-health.ts';
import { disableSubscription, recordHealth } from './endpoint-notices.ts';
import { endpointOfUrl } from './endpoint-of-url.ts';
import type { EndpointSignal } from './endpoint-scheduler.ts';
import { foldEndpointState } from './endpoint-state-fold.ts';
import type { HttpAttemptResult } from './http-sender.ts';
import { activeSecrets, webhookHeaders } from './signing.ts';
import { type Attempt, appendAttempt, type Delivery } from './store.ts';
import type { Subscription } from './subscription.ts';

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
 * caller creates or updates it, then calls {@link afterDeliveryWrite}. Returns `'stopped'` when
 * the sender cut the request off because the process stops (see StoppedRequest): no answer, no
 * attempt, nothing counted or folded into the endpoint's health; the caller defers the delivery.
 */
export async function sendAttempt(
  input: { delivery: Delivery; log: readonly Attempt[]; subscription: Subscription; body: string },
  batch: DispatchBatch,
): Promise<SentAttempt | 'stopped'> {
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
  if (result.kind === 'stopped') return 'stopped';
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
  const attempted: Delivery = withMembers(delivery, {
    attempts,
    updatedAt: doneAt,
    lastStatus: result.kind === 'response' ? result.status : undefined,
    lastError: result.kind === 'error' ? result.error : undefined,
    version: delivery.version + 1,
  });
  switch (outcome.kind) {
    case 'delivered':
      deps.metrics.count('delivered');
      attempted.status = 'delivered';
      return { next: attempted, log, outcome };
    case 'retry':
      deps.metrics.count('failed');
      deps.metrics.count('retried');
      attempted.nextAttemptAt = outcome.at;
      return { next: attempted, log, outcome };
    case 'gone': {
      deps.metrics.count('failed');
      const reason = 'endpoint answered 410 Gone';
      await deps.endpointWrites.run(subscription.id, () =>
        disableSubscription(subscription.id, reason, deps),
      );
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
