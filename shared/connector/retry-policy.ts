import type { RandomSource } from '../clock.ts';
import type { ConnectorError } from './errors.ts';

/** Bounds of the client's retries. */
export interface RetryLimits {
  /** Retries of 500s and network failures. */
  maxServerRetries: number;
  /** Retries of 429 answers. */
  maxRateLimitRetries: number;
  /** First backoff step; doubles per attempt. */
  baseDelayMs: number;
  /** Largest backoff step. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_LIMITS: RetryLimits = {
  maxServerRetries: 3,
  maxRateLimitRetries: 8,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
};

/** What to do after a failed attempt. */
export type RetryDecision =
  | { kind: 'fail' }
  | { kind: 'wait'; delayMs: number }
  | { kind: 'shrink'; count: number };

/** Counters of one call's attempts so far, by reason. */
export interface AttemptHistory {
  serverRetries: number;
  rateLimitRetries: number;
}

/**
 * Decides the next step after `error` (design.md, Connector errors): 429 waits for
 * `Retry-After`, or backs off exponentially with full jitter when it is missing; the 408
 * timeout error halves `Limitation.Count` (when there is one above 1) and retries at once;
 * 500 and network failures back off a bounded number of times; 400, 401, 403, 409 and
 * contract violations never retry. An operation that is not `repeatable` (an add) retries
 * only 429, which the server answers before doing anything, and a request that never reached
 * the server (`unsent`): after no answer, the timeout error or an internal error it may have
 * been applied, and a second send would add twice.
 * Pure: the random source is injected.
 */
export function decideRetry(
  error: ConnectorError,
  history: AttemptHistory,
  currentCount: number | undefined,
  limits: RetryLimits,
  random: RandomSource,
  repeatable = true,
): RetryDecision {
  if (!repeatable && error.category !== 'rate-limit' && !error.unsent) return { kind: 'fail' };
  switch (error.category) {
    case 'rate-limit':
      if (history.rateLimitRetries >= limits.maxRateLimitRetries) return { kind: 'fail' };
      return {
        kind: 'wait',
        delayMs: error.retryAfterMs ?? backoffDelay(history.rateLimitRetries, limits, random),
      };
    case 'timeout':
      if (currentCount !== undefined && currentCount > 1) {
        return { kind: 'shrink', count: Math.max(1, Math.floor(currentCount / 2)) };
      }
      return serverRetry(history, limits, random);
    case 'internal':
    case 'network':
      return serverRetry(history, limits, random);
    default:
      return { kind: 'fail' };
  }
}

function serverRetry(
  history: AttemptHistory,
  limits: RetryLimits,
  random: RandomSource,
): RetryDecision {
  if (history.serverRetries >= limits.maxServerRetries) return { kind: 'fail' };
  return { kind: 'wait', delayMs: backoffDelay(history.serverRetries, limits, random) };
}

/**
 * Exponential backoff with full jitter: a uniform delay in [0, min(max, base·2^attempt)],
 * never below 10% of the step so retries do not stampede at zero.
 * @example backoffDelay(2, DEFAULT_RETRY_LIMITS, () => 0.5) === 1000
 */
export function backoffDelay(attempt: number, limits: RetryLimits, random: RandomSource): number {
  const step = Math.min(limits.maxDelayMs, limits.baseDelayMs * 2 ** attempt);
  return Math.round(step * (0.1 + 0.9 * random()));
}
