import { type DeliveryOutcome, outcomePause } from './delivery-outcome.ts';
import type { EndpointState } from './store.ts';

/** Thresholds of endpoint health. */
export interface HealthPolicy {
  /**
   * Consecutive failures before `delivery.failing`, and successes in a row after it before
   * `delivery.recovered` (default 4).
   */
  failingAfterFailures: number;
  /** Time failing without a success before the subscription is disabled (default 5 days). */
  disableAfterMs: number;
}

/** What the endpoint's new state calls for. */
export type HealthNotice = 'failing' | 'recovered' | 'disable';

/** Result of {@link applyOutcome}. */
export interface HealthChange {
  state: EndpointState;
  /** False when nothing changed (a success on a healthy endpoint): no write needed. */
  changed: boolean;
  notices: HealthNotice[];
}

/**
 * Folds one attempt's outcome into the endpoint's state. Pure. A `410 Gone` changes nothing:
 * it is the receiver's answer that it wants no more, which disables the subscription, not a
 * failure of the endpoint, so the other requests in flight that end 410 after it announce no
 * `delivery.failing` behind `subscription.disabled`. A success clears the run of
 * failures (the time it counts towards `disable`); a failure extends it, says `failing` once
 * when it reaches the threshold and `disable` once it has lasted long enough. Once `failing`
 * was said, `recovered` waits for as many successes in a row as the threshold of failures
 * (hysteresis: an endpoint failing 4 times for every success says `failing` once, not a pair
 * of notices per success), and no new `failing` is said before it; a `Retry-After` pause is
 * recorded (never shortened by a later, shorter one).
 * @example applyOutcome(state, { kind: 'delivered' }, now, policy).notices // ['recovered']
 */
export function applyOutcome(
  state: EndpointState,
  outcome: DeliveryOutcome,
  nowMs: number,
  policy: HealthPolicy,
): HealthChange {
  if (outcome.kind === 'gone') return { state, changed: false, notices: [] };
  if (outcome.kind === 'delivered') {
    if (state.consecutiveFailures === 0 && !state.failingNotified) {
      return { state, changed: false, notices: [] };
    }
    const cleared = { ...state, consecutiveFailures: 0, failingSince: undefined };
    if (!state.failingNotified) return { state: cleared, changed: true, notices: [] };
    // Announced failing: recovered only after as many successes in a row as announced it.
    const successes = (state.recoveringSuccesses ?? 0) + 1;
    if (successes < policy.failingAfterFailures) {
      return { state: { ...cleared, recoveringSuccesses: successes }, changed: true, notices: [] };
    }
    return {
      state: {
        ...cleared,
        failingNotified: false,
        recoveringSuccesses: undefined,
        failingAnnouncedSince: undefined,
      },
      changed: true,
      notices: ['recovered'],
    };
  }
  const next: EndpointState = {
    ...state,
    consecutiveFailures: state.consecutiveFailures + 1,
    failingSince: state.failingSince ?? nowMs,
    recoveringSuccesses: undefined,
  };
  const pauseUntil = outcomePause(outcome);
  if (pauseUntil !== undefined) next.pausedUntil = Math.max(state.pausedUntil ?? 0, pauseUntil);
  const notices: HealthNotice[] = [];
  if (!next.failingNotified && next.consecutiveFailures >= policy.failingAfterFailures) {
    next.failingNotified = true;
    next.failingAnnouncedSince = next.failingSince;
    notices.push('failing');
  }
  if (nowMs - (next.failingSince ?? nowMs) >= policy.disableAfterMs) notices.push('disable');
  return { state: next, changed: true, notices };
}

/**
 * Records a `Retry-After` pause learnt from another subscription to the same URL: the pause
 * only (never shortened), no failure counted. Pure.
 * @example applyPause({ ...state, pausedUntil: 5 }, 9).state.pausedUntil === 9
 */
export function applyPause(
  state: EndpointState,
  untilMs: number,
): { state: EndpointState; changed: boolean } {
  if ((state.pausedUntil ?? 0) >= untilMs) return { state, changed: false };
  return { state: { ...state, pausedUntil: untilMs }, changed: true };
}
