import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { SlidingWindowLimiter, sharedLimiterFor } from '../../shared/connector/rate-limiter.ts';

describe('SlidingWindowLimiter', () => {
  it('holds 200 per 30 s under a burst of 1,000 calls', async () => {
    const clock = new ManualClock(0);
    const limiter = new SlidingWindowLimiter({ requests: 200, windowMs: 30_000 }, clock);
    const grantedAt: number[] = [];
    const all = Array.from({ length: 1000 }, () =>
      limiter.acquire().then(() => grantedAt.push(clock.now())),
    );
    while (grantedAt.length < 1000) await clock.advance(250);
    await Promise.all(all);
    grantedAt.sort((a, b) => a - b);
    let maxInWindow = 0;
    for (let i = 0, j = 0; i < grantedAt.length; i++) {
      while (grantedAt[j]! <= grantedAt[i]! - 30_000) j++;
      maxInWindow = Math.max(maxInWindow, i - j + 1);
    }
    expect(maxInWindow).toBe(200);
    expect(grantedAt[999]).toBeGreaterThanOrEqual(4 * 30_000);
    expect(grantedAt[999]).toBeLessThan(4 * 30_000 + 1000);
  });

  it('pauses every caller until a server-given time', async () => {
    const clock = new ManualClock(0);
    const limiter = new SlidingWindowLimiter({ requests: 200, windowMs: 30_000 }, clock);
    limiter.pauseUntil(2000);
    let granted = -1;
    const waiting = limiter.acquire().then(() => {
      granted = clock.now();
    });
    await clock.advance(1999);
    expect(granted).toBe(-1);
    await clock.advance(1);
    await waiting;
    expect(granted).toBe(2000);
  });

  it('shares one budget per AccessToken across clients of the process', () => {
    const clock = new ManualClock(0);
    const limit = { requests: 200, windowMs: 30_000 };
    expect(sharedLimiterFor('token-a', limit, clock)).toBe(
      sharedLimiterFor('token-a', limit, clock),
    );
    expect(sharedLimiterFor('token-a', limit, clock)).not.toBe(
      sharedLimiterFor('token-b', limit, clock),
    );
  });
});
