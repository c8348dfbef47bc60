import type { DeliveryOutcome } from './delivery-outcome.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { applyOutcome } from './endpoint-health.ts';
import { buildOperationalEvent } from './operational-events.ts';
import type { EndpointState } from './store.ts';
import type { Subscription } from './subscription.ts';

/** What {@link recordHealth} left behind. */
export interface HealthRecorded {
  /** The endpoint's state after the outcome (stored when it changed). */
  state: EndpointState;
  /** The subscription was disabled for failing too long. */
  disabled: boolean;
}

/**
 * Folds an attempt's outcome into the endpoint's stored health and acts on what it calls
 * for: `delivery.failing`, `delivery.recovered`, or disabling the subscription. A success
 * on a healthy endpoint writes nothing.
 */
export async function recordHealth(
  subscription: Subscription,
  endpoint: EndpointState,
  outcome: DeliveryOutcome,
  deps: DispatcherDeps,
): Promise<HealthRecorded> {
  const now = deps.clock.now();
  const change = applyOutcome(endpoint, outcome, now, deps.config);
  // A later pause another process stored since `endpoint` was read is kept (and learnt here).
  const state = change.changed
    ? await deps.store.putEndpointState(change.state, { keepLaterPause: true })
    : change.state;
  let disabled = false;
  const base = { url: subscription.url, consecutiveFailures: state.consecutiveFailures };
  for (const notice of change.notices) {
    // Keyed on the failing run: deliveries to one endpoint run concurrently, and two that
    // fail (or succeed) at once each see the threshold crossed; their notices share one id.
    if (notice === 'failing') {
      const failingSince = new Date(state.failingSince ?? now).toISOString();
      await deps.sink.publish(
        buildOperationalEvent(
          'delivery.failing',
          subscription.id,
          { ...base, failingSince },
          deps.clock,
          failingSince,
        ),
      );
    } else if (notice === 'recovered') {
      await deps.sink.publish(
        buildOperationalEvent(
          'delivery.recovered',
          subscription.id,
          { url: subscription.url },
          deps.clock,
          endpoint.failingSince === undefined ? undefined : String(endpoint.failingSince),
        ),
      );
    } else {
      await disableSubscription(subscription.id, 'failing without success for too long', deps);
      disabled = true;
    }
  }
  return { state, disabled };
}

/** Disables a subscription and publishes `subscription.disabled` (once: a disabled one is left alone). */
export async function disableSubscription(
  subscriptionId: string,
  reason: string,
  deps: DispatcherDeps,
): Promise<void> {
  const current = await deps.store.getSubscription(subscriptionId);
  if (!current?.enabled) return;
  const now = deps.clock.now();
  await deps.store.putSubscription({
    ...current,
    enabled: false,
    disabledReason: reason,
    updatedAt: new Date(now).toISOString(),
  });
  await deps.sink.publish(
    buildOperationalEvent(
      'subscription.disabled',
      subscriptionId,
      { url: current.url, reason },
      deps.clock,
    ),
  );
}
