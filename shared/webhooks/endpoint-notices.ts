import type { DeliveryOutcome } from './delivery-outcome.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { applyOutcome, type HealthNotice } from './endpoint-health.ts';
import { endpointOfUrl } from './endpoint-of-url.ts';
import { foldEndpointState } from './endpoint-state-fold.ts';
import { buildOperationalEvent } from './operational-events.ts';
import type { EndpointState } from './store.ts';
import type { Subscription } from './subscription.ts';
import { changeSubscription } from './subscription-change.ts';

/** What {@link recordHealth} left behind. */
export interface HealthRecorded {
  /** The endpoint's state after the outcome (stored when it changed). */
  state: EndpointState;
  /** The subscription was disabled for failing too long. */
  disabled: boolean;
}

/**
 * Folds an attempt's outcome into the endpoint's stored health and acts on what it calls
 * for: `delivery.failing`, `delivery.recovered`, or disabling the subscription. `endpoint` is
 * the caller's copy of the state (a newer one another batch of the process stored is used
 * instead: see KnownEndpointStates); the outcome is stored over the latest state whatever other
 * deliveries, batches or processes wrote since (`foldEndpointState`), one fold at a time per
 * endpoint in this process, so every failure counts and a notice is decided on the state that
 * was stored. Its notices are published before the next fold of the endpoint starts, so they
 * reach the queue, and the subscribers, in the order they were decided (a `delivery.recovered`
 * never ahead of the `delivery.failing` it ends). A success on a healthy endpoint writes nothing.
 */
export async function recordHealth(
  subscription: Subscription,
  endpoint: EndpointState,
  outcome: DeliveryOutcome,
  deps: DispatcherDeps,
): Promise<HealthRecorded> {
  const now = deps.clock.now();
  // The caller's copy, unless another batch of the process has stored a newer state since: a
  // success folded into a stale healthy copy would change nothing and go uncounted.
  const known = deps.scheduler.endpointStates.newest(endpoint);
  /** The state the outcome was last folded into: the caller's copy, or one read back. */
  let before = known;
  const fold = (current: EndpointState) => {
    before = current;
    return applyOutcome(withProcessPause(current, subscription, deps), outcome, now, deps.config);
  };
  // The common case, a success on a healthy endpoint, changes nothing and waits for nothing.
  const onCopy = fold(known);
  if (!onCopy.changed) return { state: onCopy.state, disabled: false };
  return deps.endpointWrites.run(subscription.id, async () => {
    const latest = deps.scheduler.endpointStates.newest(known);
    const { state, notices, written } = await foldEndpointState(deps.store, latest, fold);
    // Known to the process's next fold of the endpoint, which may start before the caller's turn.
    if (written) deps.scheduler.endpointStates.note(state);
    return { state, disabled: await actOnNotices(subscription, state, before, notices, deps) };
  });
}

/**
 * Publishes what the notices of a fold call for, and disables the subscription when one says
 * so; returns whether it did. `before` is the state the outcome was folded into. Says nothing
 * of a subscription disabled (a 410, failing too long, the admin API) or removed by now: the
 * requests in flight when it was end as they answer, and their failures or successes must not
 * reach its subscribers after `subscription.disabled` (enabling it again starts it healthy, so
 * no `delivery.recovered` is owed). Read only when there is something to say, which is rare.
 */
async function actOnNotices(
  subscription: Subscription,
  state: EndpointState,
  before: EndpointState,
  notices: readonly HealthNotice[],
  deps: DispatcherDeps,
): Promise<boolean> {
  const now = deps.clock.now();
  let disabled = false;
  const base = { url: subscription.url, consecutiveFailures: state.consecutiveFailures };
  const says = notices.some((notice) => notice !== 'disable');
  const enabled = says && (await deps.store.getSubscription(subscription.id))?.enabled === true;
  for (const notice of notices) {
    if (notice !== 'disable' && !enabled) continue;
    // Keyed on the failing run: should a fold give up unwritten, another delivery may see the
    // same threshold crossed; their notices share one id.
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
          recoveredKey(before),
        ),
      );
    } else {
      await disableSubscription(subscription.id, 'failing without success for too long', deps);
      disabled = true;
    }
  }
  return disabled;
}

/**
 * What a `delivery.recovered` is keyed on: the announced run's start (the run of failures
 * itself was cleared by the first of the successes it took), else, for a state stored before
 * that was kept, the run's start as it was, else nothing (its time stands in).
 */
function recoveredKey(before: EndpointState): string | undefined {
  const since = before.failingAnnouncedSince ?? before.failingSince;
  return since === undefined ? undefined : String(since);
}

/**
 * Disables a subscription and publishes `subscription.disabled` (once: a disabled one is left
 * alone). Stored over the version read (`changeSubscription`): a change an admin makes at the same
 * time, in any process, neither undoes the disable nor is undone by it. Callers outside a fold
 * of the endpoint run it as one of them (`endpointWrites`), so no notice of this process decided
 * on the subscription still enabled is published after it.
 */
export async function disableSubscription(
  subscriptionId: string,
  reason: string,
  deps: DispatcherDeps,
): Promise<void> {
  const changed = await changeSubscription(deps.store, subscriptionId, (current) =>
    current.enabled
      ? {
          ...current,
          enabled: false,
          disabledReason: reason,
          updatedAt: new Date(deps.clock.now()).toISOString(),
        }
      : undefined,
  );
  if (!changed?.before.enabled) return;
  const current = changed.after;
  await deps.sink.publish(
    buildOperationalEvent(
      'subscription.disabled',
      subscriptionId,
      { url: current.url, reason },
      deps.clock,
    ),
  );
}

/**
 * `endpoint` with the latest pause this process knows of: another batch may have met a 429
 * whose pause is not in `endpoint` (read before, or its write gave up), and a write of the state
 * must not drop that pause (the stored pause is what holds the endpoint across a restart).
 */
function withProcessPause(
  endpoint: EndpointState,
  subscription: Subscription,
  deps: DispatcherDeps,
): EndpointState {
  const known = deps.scheduler.pausedUntil(endpointOfUrl(subscription.url));
  return known !== undefined && known > (endpoint.pausedUntil ?? 0)
    ? { ...endpoint, pausedUntil: known }
    : endpoint;
}
