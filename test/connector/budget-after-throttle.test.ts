import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  PACE_AFTER_THROTTLE,
  SLOW_WINDOWS_AFTER_THROTTLE,
} from '../../shared/connector/budget/budget-pacing.ts';
import type { BudgetPriority } from '../../shared/connector/budget/budget-types.ts';
import { type GrantLedger, MemoryGrantLedger } from '../../shared/connector/budget/grant-ledger.ts';
import { busiestWindow } from '../../shared/connector/budget/sliding-log.ts';
import { TokenBudget } from '../../shared/connector/budget/token-budget.ts';

const LIMITS = { requests: 200, windowMs: 30_000, marginMs: 500 };
const WINDOW_MS = LIMITS.windowMs + LIMITS.marginMs;
/** The soak's streams: eleven polled every 2 s ask 11 × 16 = 176 a window. */
const STREAMS = 11;
const INTERVAL_MS = 2_000;
const RETRY_AFTER_MS = 1_000;
const STEP_MS = 50;

/** A memory ledger that notes every grant it makes, and for which lane. */
function notingLedger(granted: { at: number; priority: BudgetPriority }[]): GrantLedger {
  const ledger = new MemoryGrantLedger();
  return {
    async take(key, now, windowMs, capacity, claim) {
      const result = await ledger.take(key, now, windowMs, capacity, claim);
      if (result.granted) granted.push({ at: result.at, priority: claim?.live ? 'live' : 'bulk' });
      return result;
    },
    recent: (key, nowMs, windowMs) => ledger.recent(key, nowMs, windowMs),
    pause: (key, untilMs) => ledger.pause(key, untilMs),
    release: (key, given) => ledger.release(key, given),
    restamp: (...args) => ledger.restamp(...args),
  };
}

describe('the budget after a 429 whose window holds more than the lowered limit', () => {
  it('serves live claims once the Retry-After ends while bulk claims wait, and reaches the lower pace without a stop', async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 3));
    const granted: { at: number; priority: BudgetPriority }[] = [];
    const budget = new TokenBudget('token', LIMITS, clock, notingLedger(granted));
    let running = true;
    const live = Array.from({ length: STREAMS }, async (_, n) => {
      while (running) {
        await budget.acquire({
          priority: 'live',
          streamId: `hotel:s${n}`,
          intervalMs: INTERVAL_MS,
        });
        await clock.sleep(INTERVAL_MS);
      }
    });
    // A first sync (bulk) asks again as soon as it is granted: it fills what the live polls leave.
    const bulk = (async () => {
      while (running) await budget.acquire({ priority: 'bulk' });
    })();
    for (let t = 0; t < 40_000; t += STEP_MS) await clock.advance(STEP_MS);
    const lowered = Math.floor(LIMITS.requests * PACE_AFTER_THROTTLE);
    expect(budget.view().requestsInWindow).toBeGreaterThan(lowered);

    const throttledAt = clock.now();
    const resumesAt = throttledAt + RETRY_AFTER_MS;
    await budget.throttled(resumesAt);
    for (let t = 0; t < 3 * WINDOW_MS; t += STEP_MS) await clock.advance(STEP_MS);
    running = false;

    const after = granted.filter(({ at }) => at >= throttledAt);
    // Nothing goes before the Retry-After ends...
    expect(after[0]!.at).toBeGreaterThanOrEqual(resumesAt);
    // ...then the live polls go on at once: before, the lowered limit (150) refused every claim
    // until the window aged below it: 7.7 s after the 429, with nothing sent meanwhile.
    const firstLive = after.find(({ priority }) => priority === 'live')!;
    expect(firstLive.at - throttledAt).toBeLessThanOrEqual(1_500);
    const liveAfter = after.filter(({ priority }) => priority === 'live').map(({ at }) => at);
    const slowEnd = resumesAt + SLOW_WINDOWS_AFTER_THROTTLE * LIMITS.windowMs;
    const liveGaps = liveAfter.slice(1).map((at, i) => at - liveAfter[i]!);
    expect(Math.max(...liveGaps.filter((_, i) => liveAfter[i]! < slowEnd))).toBeLessThan(1_000);
    // Bulk work absorbs the lower pace: it waits while the window holds more than it allows.
    const firstBulk = after.find(({ priority }) => priority === 'bulk')!;
    expect(firstBulk.at - resumesAt).toBeGreaterThan(1_000);
    const counted = (at: number) => granted.filter((g) => g.at > at - WINDOW_MS && g.at <= at);
    expect(counted(firstBulk.at).length).toBeLessThanOrEqual(lowered);
    // The server's limit holds in every window; once the grants before the 429 have aged out,
    // the window holds no more than the lowered limit while the slower pace lasts, and is used.
    const timesOf = (grants: typeof granted) => grants.map(({ at }) => at);
    expect(busiestWindow(timesOf(granted), WINDOW_MS)).toBeLessThanOrEqual(LIMITS.requests);
    const slowed = granted.filter(({ at }) => at >= resumesAt + WINDOW_MS && at < slowEnd);
    expect(busiestWindow(timesOf(slowed), WINDOW_MS)).toBeLessThanOrEqual(lowered);
    const slowedWindows = (slowEnd - resumesAt - WINDOW_MS) / WINDOW_MS;
    expect(slowed.length).toBeGreaterThan(0.9 * lowered * slowedWindows);

    for (let t = 0; t < 10_000; t += STEP_MS) await clock.advance(STEP_MS);
    await Promise.all([...live, bulk]);
  });
});
