import type { RandomSource } from '../clock.ts';

/** Bounds on retrying entries that a target refused for a transient reason. */
export interface RetryOptions {
  /** Total attempts for one entry, the first included (default 5). */
  maxAttempts: number;
  /** Backoff base: the cap of the first retry's delay (default 100 ms). */
  baseDelayMs: number;
  /** Largest delay between two attempts (default 5 s). */
  maxDelayMs: number;
}

/** Defaults: 5 attempts over at most about 0.1 + 0.2 + 0.4 + 0.8 s of waiting. */
export const DEFAULT_RETRY_OPTIONS: RetryOptions = {
  maxAttempts: 5,
  baseDelayMs: 100,
  maxDelayMs: 5_000,
};

/**
 * The publishers' retries (EventBridge, the SQS queues): 9 attempts over at most about
 * 0.1 + 0.2 + 0.4 + 0.8 + 1.6 + 3.2 + 5 + 5 = 16.3 s of waiting (8 s on average, full jitter).
 * A PutEvents or SendMessageBatch entry throttled (the account's PutEvents rate is shared by
 * every poller) mostly passes within seconds; the defaults' 1.5 s at most failed the stream's
 * poll (a PollFailures count, its page read again after a backoff) for a throttling burst of
 * two seconds. The poller bounds the waits by its invocation's deadline (PublishOptions).
 */
export const PUBLISH_RETRY_OPTIONS: RetryOptions = {
  maxAttempts: 9,
  baseDelayMs: 100,
  maxDelayMs: 5_000,
};

/**
 * Delay before retry number `retry` (1 for the first retry): "full jitter" exponential
 * backoff, uniform in [0, min(max, base × 2^(retry−1))), as AWS recommends so that
 * throttled callers spread out instead of retrying in step.
 * @example backoffDelayMs(1, seededRandom(1), DEFAULT_RETRY_OPTIONS) // < 100
 */
export function backoffDelayMs(retry: number, random: RandomSource, options: RetryOptions): number {
  const cap = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * cap);
}
