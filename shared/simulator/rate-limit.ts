import type { Clock } from '../clock.ts';

/** Server-side request budget; the facts table of design.md: 200 per AccessToken per 30 s. */
export interface SimRateLimit {
  requests: number;
  windowMs: number;
}

/** The real service's budget. */
export const SIM_DEFAULT_RATE_LIMIT: SimRateLimit = { requests: 200, windowMs: 30_000 };

/** The outcome of asking for one request's worth of budget. */
export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Sliding-window counter per AccessToken: a request at time t counts against [t, t + window).
 * A Portfolio Access Token is one key, so it shares one budget over all its enterprises.
 * Rejected requests do not consume budget.
 */
export class SimRateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private limit: SimRateLimit | false,
    private readonly clock: Clock,
  ) {}

  /** Counts a request for `token` if the budget allows it. */
  take(token: string): RateDecision {
    if (!this.limit) return { allowed: true };
    const now = this.clock.now();
    const times = this.hits.get(token) ?? [];
    const horizon = now - this.limit.windowMs;
    let expired = 0;
    while (expired < times.length && times[expired]! <= horizon) expired += 1;
    if (expired > 0) times.splice(0, expired);
    if (times.length >= this.limit.requests) {
      const waitMs = times[0]! + this.limit.windowMs - now;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    }
    times.push(now);
    this.hits.set(token, times);
    return { allowed: true };
  }

  /** Forgets every counted request (tests that need a fresh budget). */
  reset(): void {
    this.hits.clear();
  }

  /** Replaces the budget (`false` turns limiting off) and forgets counted requests. */
  configure(limit: SimRateLimit | false): void {
    this.limit = limit;
    this.hits.clear();
  }
}
