import type { RandomSource } from '../clock.ts';

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;

/** Default delays after attempt 1, 2, …: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts). */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND_MS,
  5 * MINUTE_MS,
  30 * MINUTE_MS,
  2 * HOUR_MS,
  5 * HOUR_MS,
  10 * HOUR_MS,
  10 * HOUR_MS,
];

/** Jitter applied to every scheduled delay: ±20%. */
export const RETRY_JITTER_RATIO = 0.2;

/**
 * Longest endpoint pause a `Retry-After` may ask for before it is clamped: the default
 * schedule's whole span, first attempt to last (27 h 35 min 5 s). A receiver's wait is
 * honoured as long as the bridge would keep trying a delivery anyway; one that asks for days
 * (a misconfiguration, most likely) is tried again then, its deliveries dead-lettered when
 * their attempts run out and the subscription disabled after `WEBHOOK_DISABLE_AFTER`, as for
 * any failing endpoint.
 */
export const ENDPOINT_PAUSE_MAX_MS = DEFAULT_RETRY_SCHEDULE_MS.reduce((sum, step) => sum + step, 0);

/** Consecutive failures after which `delivery.failing` is published. */
export const FAILING_AFTER_FAILURES = 4;

/** Time failing without a success after which a subscription is disabled: 5 days. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * HOUR_MS;

/**
 * The delay before the attempt after `attemptsMade` failed attempts, with ±20% jitter, or
 * `undefined` when the schedule is used up (the delivery is then dead-lettered).
 * Pure: the jitter comes from `random`.
 * @example nextRetryDelay(1, DEFAULT_RETRY_SCHEDULE_MS, seededRandom(1)) // ≈ 5000 ± 1000
 */
export function nextRetryDelay(
  attemptsMade: number,
  schedule: readonly number[],
  random: RandomSource,
): number | undefined {
  const base = schedule[attemptsMade - 1];
  if (base === undefined) return undefined;
  const factor = 1 - RETRY_JITTER_RATIO + 2 * RETRY_JITTER_RATIO * random();
  return Math.max(1, Math.round(base * factor));
}
