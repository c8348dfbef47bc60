import type { Clock } from '../clock.ts';

/** The Connector API's published budget: 200 requests per AccessToken in any 30-second window. */
export const CONNECTOR_REQUESTS_PER_WINDOW = 200;
export const CONNECTOR_RATE_WINDOW_MS = 30_000;

/** A request budget: at most `requests` in any sliding window of `windowMs`. */
export interface RateLimit {
  requests: number;
  windowMs: number;
}

/**
 * Sliding-window limiter: grants at most `requests` permits in any window of `windowMs`
 * (a grant at time t counts for [t, t + windowMs)). Callers are served in arrival order.
 * A server-side 429 can pause every caller with {@link SlidingWindowLimiter.pauseUntil}.
 */
export class SlidingWindowLimiter {
  private readonly grants: number[] = [];
  private pausedUntilMs = 0;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly limit: RateLimit,
    private readonly clock: Clock,
  ) {}

  /** Waits for a permit. Rejects only when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<void> {
    const turn = this.tail.then(() => this.waitForSlot(signal));
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** Holds every caller until `epochMs` (e.g. the server answered 429 with Retry-After). */
  pauseUntil(epochMs: number): void {
    this.pausedUntilMs = Math.max(this.pausedUntilMs, epochMs);
  }

  /** Permits granted in the current window (for metrics and tests). */
  inFlightWindowCount(): number {
    this.expire(this.clock.now());
    return this.grants.length;
  }

  private expire(now: number): void {
    while (this.grants.length > 0 && this.grants[0]! <= now - this.limit.windowMs)
      this.grants.shift();
  }

  private async waitForSlot(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      if (now < this.pausedUntilMs) {
        await this.clock.sleep(this.pausedUntilMs - now, signal);
        continue;
      }
      this.expire(now);
      if (this.grants.length < this.limit.requests) {
        this.grants.push(now);
        return;
      }
      await this.clock.sleep(this.grants[0]! + this.limit.windowMs - now, signal);
    }
  }
}

const sharedLimiters = new WeakMap<Clock, Map<string, SlidingWindowLimiter>>();

/**
 * The process-wide limiter of one AccessToken: every client built with the same token and
 * clock shares one budget (a Portfolio Access Token shares one budget over its enterprises).
 * The token is only a map key in memory; it is never logged.
 */
export function sharedLimiterFor(
  accessToken: string,
  limit: RateLimit,
  clock: Clock,
): SlidingWindowLimiter {
  let byToken = sharedLimiters.get(clock);
  if (!byToken) {
    byToken = new Map();
    sharedLimiters.set(clock, byToken);
  }
  const key = `${accessToken}\u0000${limit.requests}/${limit.windowMs}`;
  let limiter = byToken.get(key);
  if (!limiter) {
    limiter = new SlidingWindowLimiter(limit, clock);
    byToken.set(key, limiter);
  }
  return limiter;
}
