import { type DeliveryOutcome, decideOutcome } from './delivery-outcome.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { disableSubscription, recordHealth } from './endpoint-notices.ts';
import { delaySecondsUntil } from './queue.ts';
import { activeSecrets, webhookHeaders } from './signing.ts';
import { type Delivery, freshEndpointState } from './store.ts';

/** Slack for a message that arrives a little before its delivery is due (clock skew), in ms. */
const EARLY_ARRIVAL_SLACK_MS = 1000;

/** What handling one delivery message came to. */
export type AttemptResult =
  | { kind: 'skipped'; reason: string }
  | { kind: 'deferred'; until: number }
  | { kind: 'attempted'; outcome: DeliveryOutcome };

/**
 * Handles one delivery message: re-defers it while not due or while its endpoint is
 * paused (no request, no attempt counted), otherwise signs and POSTs the stored event,
 * logs the attempt, updates the endpoint's health and schedules what comes next.
 * Safe to repeat: a delivery that is no longer pending is skipped, and every delivery
 * update is conditional on its version, so a duplicate message cannot fork its retries.
 * Throws only on storage or queue failure (the message is then retried by SQS).
 */
export async function attemptDelivery(
  deliveryId: string,
  deps: DispatcherDeps,
): Promise<AttemptResult> {
  const { store, clock } = deps;
  const delivery = await store.getDelivery(deliveryId);
  if (!delivery) return { kind: 'skipped', reason: 'unknown delivery' };
  if (delivery.status !== 'pending')
    return { kind: 'skipped', reason: `already ${delivery.status}` };
  const now = clock.now();
  if (delivery.nextAttemptAt > now + EARLY_ARRIVAL_SLACK_MS) {
    return defer(delivery, delivery.nextAttemptAt, deps);
  }
  const subscription = await store.getSubscription(delivery.subscriptionId);
  if (!subscription?.enabled) {
    const reason = subscription ? 'subscription disabled' : 'subscription removed';
    await deadLetter({ ...delivery }, reason, deps);
    return { kind: 'skipped', reason };
  }
  const endpoint =
    (await store.getEndpointState(subscription.id)) ?? freshEndpointState(subscription.id);
  // Strict: a paused endpoint gets no request before its Retry-After has passed.
  if (endpoint.pausedUntil !== undefined && endpoint.pausedUntil > now) {
    return defer(delivery, endpoint.pausedUntil, deps);
  }
  const event = await store.getEvent(delivery.eventId);
  if (!event) {
    await deadLetter(delivery, 'event no longer stored', deps);
    return { kind: 'skipped', reason: 'event no longer stored' };
  }

  const result = await deps.sender.send({
    url: subscription.url,
    body: event.body,
    headers: webhookHeaders({
      id: event.id,
      timestampSeconds: Math.floor(now / 1000),
      body: event.body,
      secrets: activeSecrets(subscription, now),
    }),
  });
  const attempts = delivery.attempts + 1;
  const doneAt = clock.now();
  const outcome = decideOutcome(result, {
    attemptsMade: attempts,
    schedule: subscription.retrySchedule ?? deps.config.defaultRetrySchedule,
    nowMs: doneAt,
    random: deps.random,
    maxPauseMs: deps.config.maxPauseMs,
  });
  await store.putAttempt({
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

  const attempted: Delivery = {
    ...delivery,
    attempts,
    updatedAt: doneAt,
    lastStatus: result.kind === 'response' ? result.status : undefined,
    lastError: result.kind === 'error' ? result.error : undefined,
  };
  await recordHealth(subscription, endpoint, outcome, deps);
  switch (outcome.kind) {
    case 'delivered':
      deps.metrics.count('delivered');
      await store.updateDelivery({
        ...attempted,
        status: 'delivered',
        version: delivery.version + 1,
      });
      break;
    case 'retry':
      deps.metrics.count('failed');
      deps.metrics.count('retried');
      if (
        await store.updateDelivery({
          ...attempted,
          nextAttemptAt: outcome.at,
          version: delivery.version + 1,
        })
      ) {
        await deps.queue.send(
          { kind: 'delivery', deliveryId: delivery.id },
          delaySecondsUntil(outcome.at, doneAt),
        );
      }
      break;
    case 'gone':
      deps.metrics.count('failed');
      await disableSubscription(subscription.id, 'endpoint answered 410 Gone', deps);
      await deadLetter(attempted, 'endpoint answered 410 Gone', deps);
      break;
    case 'rejected':
      deps.metrics.count('failed');
      await deadLetter(attempted, outcome.reason, deps);
      break;
  }
  return { kind: 'attempted', outcome };
}

async function defer(
  delivery: Delivery,
  until: number,
  deps: DispatcherDeps,
): Promise<AttemptResult> {
  const now = deps.clock.now();
  const updated = {
    ...delivery,
    nextAttemptAt: until,
    updatedAt: now,
    version: delivery.version + 1,
  };
  if (await deps.store.updateDelivery(updated)) {
    deps.metrics.count('deferred');
    await deps.queue.send(
      { kind: 'delivery', deliveryId: delivery.id },
      delaySecondsUntil(until, now),
    );
  }
  return { kind: 'deferred', until };
}

async function deadLetter(delivery: Delivery, reason: string, deps: DispatcherDeps): Promise<void> {
  const now = deps.clock.now();
  const dead: Delivery = {
    ...delivery,
    status: 'dead',
    deadReason: reason,
    deadAt: now,
    updatedAt: now,
    version: delivery.version + 1,
  };
  if (await deps.store.updateDelivery(dead)) {
    await deps.store.addDeadLetter(dead);
    deps.metrics.count('deadLettered');
  }
}
