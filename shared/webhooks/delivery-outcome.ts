import type { RandomSource } from '../clock.ts';
import { parseRetryAfter } from '../retry-after.ts';
import type { HttpAttemptResult } from './http-sender.ts';
import { nextRetryDelay } from './retry-policy.ts';

/**
 * What one attempt came to, as a value (the way the Svix worker reports it):
 * - `delivered`: a 2xx within the timeout;
 * - `retry`: try again at `at` (epoch ms); `pauseUntil` is set when the endpoint asked
 *   us (429/503 with `Retry-After`) to stay away from it as a whole until then;
 * - `gone`: 410, the subscriber wants no more (the subscription is disabled);
 * - `rejected`: no further attempt: the schedule is used up or the address is refused; a
 *   last attempt answered 429/503 with `Retry-After` still pauses the endpoint (`pauseUntil`).
 */
export type DeliveryOutcome =
  | { kind: 'delivered' }
  | { kind: 'retry'; at: number; pauseUntil?: number }
  | { kind: 'gone' }
  | { kind: 'rejected'; reason: string; pauseUntil?: number };

/** What {@link decideOutcome} needs besides the HTTP result. */
export interface OutcomeContext {
  /** Attempts made so far, this one included. */
  attemptsMade: number;
  schedule: readonly number[];
  nowMs: number;
  random: RandomSource;
  /** Upper bound of an endpoint pause asked for by `Retry-After`. */
  maxPauseMs: number;
}

/**
 * Turns an HTTP result into a {@link DeliveryOutcome}. Pure. Any non-2xx other than 410 is
 * retried on the schedule (design.md "Delivery"); a 429 or 503 with a readable
 * `Retry-After` also pauses the endpoint, and the retry is never before the pause ends. The
 * pause holds on a delivery's last attempt too: the endpoint asked for it, whatever becomes
 * of that one delivery.
 * @example decideOutcome(result, { attemptsMade: 1, schedule, nowMs, random, maxPauseMs: 3_600_000 })
 */
export function decideOutcome(result: HttpAttemptResult, context: OutcomeContext): DeliveryOutcome {
  if (result.kind === 'error' && result.error === 'blocked') {
    return { kind: 'rejected', reason: `refused address: ${result.message}` };
  }
  let pauseUntil: number | undefined;
  if (result.kind === 'response') {
    if (result.status >= 200 && result.status < 300) return { kind: 'delivered' };
    if (result.status === 410) return { kind: 'gone' };
    if (result.status === 429 || result.status === 503) {
      const waitMs = parseRetryAfter(result.headers['retry-after'], context.nowMs, {
        maxMs: context.maxPauseMs,
        serverDate: result.headers.date,
      });
      if (waitMs !== undefined && waitMs > 0) pauseUntil = context.nowMs + waitMs;
    }
  }
  const delay = nextRetryDelay(context.attemptsMade, context.schedule, context.random);
  if (delay === undefined) {
    const reason = `no success after ${context.attemptsMade} attempts`;
    return pauseUntil === undefined
      ? { kind: 'rejected', reason }
      : { kind: 'rejected', reason, pauseUntil };
  }
  const at = Math.max(context.nowMs + delay, pauseUntil ?? 0);
  return pauseUntil === undefined ? { kind: 'retry', at } : { kind: 'retry', at, pauseUntil };
}

/**
 * Until when the endpoint asked to be left alone (a 429 or 503 with `Retry-After`), whether
 * the delivery is retried or was on its last attempt; `undefined` when it asked nothing.
 * @example outcomePause({ kind: 'rejected', reason: 'no success after 8 attempts', pauseUntil: t }) === t
 */
export function outcomePause(outcome: DeliveryOutcome): number | undefined {
  return outcome.kind === 'retry' || outcome.kind === 'rejected' ? outcome.pauseUntil : undefined;
}
