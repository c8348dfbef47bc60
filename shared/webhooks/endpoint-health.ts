import { type DeliveryOutcome, outcomePause } from './delivery-outcome.ts';
import type { EndpointState } from './store.ts';

/** Thresholds of endpoint health. */
export interface HealthPolicy {
  /** Consecutive failures before `delivery.failing` (default 4). */
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
 * Folds one attempt's outcome into the endpoint's state. Pure. A success clears the run of
 * failures (and says `recovered` if `failing` was announced); a failure extends it, says
 * `failing` once when it reaches the threshold and `disable` once it has lasted long
 * enough; a `Retry-After` pause is recorded (never shortened by a later, shorter one).
 * @example applyOutcome(state, { kind: 'delivered' }, now, policy).notices // ['recovered']
 */
export function applyOutcome(
  state: EndpointState,
  outcome: DeliveryOutcome,
  nowMs: number,
  policy: HealthPolicy,
): HealthChange {
  if (outcome.kind === 'delivered') {
    if (state.consecutiveFailures === 0 && !state.failingNotified) {
      return { state, changed: false, notices: [] };
    }
    return {
      state: { ...state, consecutiveFailures: 0, failingSince: undefined, failingNotified: false },
      changed: true,
      notices: state.failingNotified ? ['recovered'] : [],
    };
  }
  const next: EndpointState = {
    ...state,
    consecutiveFailures: state.consecutiveFailures + 1,
    failingSince: state.failingSince ?? nowMs,
  };
  const pauseUntil = outcomePause(outcome);
  if (pauseUntil !== undefined) next.pausedUntil = Math.max(state.pausedUntil ?? 0, pauseUntil);
  const notices: HealthNotice[] = [];
  if (!next.failingNotified && next.consecutiveFailures >= policy.failingAfterFailures) {
    next.failingNotified = true;
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
