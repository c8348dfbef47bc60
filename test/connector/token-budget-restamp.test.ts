import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { BudgetClaim } from '../../shared/connector/budget/budget-types.ts';
import { MemoryGrantLedger } from '../../shared/connector/budget/grant-ledger.ts';
import { TokenBudget } from '../../shared/connector/budget/token-budget.ts';

/** Two requests per 3 s, spaced over 3.5 s. */
const LIMITS = { requests: 2, windowMs: 3_000, marginMs: 500 };
const WINDOW_MS = LIMITS.windowMs + LIMITS.marginMs;
const LIVE: BudgetClaim = { priority: 'live' };

/** Steps `clock` by 100 ms until `promise` settles, or up to `untilMs`. */
async function settledAt(clock: ManualClock, promise: Promise<unknown>, untilMs: number) {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  // The budget's pump first runs its turn at the time it was asked.
  await clock.advance(0);
  while (!settled && clock.now() < untilMs) await clock.advance(100);
}

describe('a late grant moved to the time its request goes', () => {
  it('keeps its slot, and counts from its new time for the claims after it', async () => {
    const clock = new ManualClock(0);
    const ledger = new MemoryGrantLedger();
    const budget = new TokenBudget('key', LIMITS, clock, ledger);
    const first = await budget.acquire(LIVE);
    await budget.acquire(LIVE);
    await clock.advance(1_000);
    expect(budget.isLate(first)).toBe(true);
    // The window is full, yet the move takes no slot of its own.
    expect(await budget.restamp(first, LIVE)).toEqual({ at: 1_000, priority: 'live' });
    expect(await ledger.recent('key', 1_000, WINDOW_MS)).toEqual([0, 1_000]);
    const third = budget.acquire(LIVE);
    await settledAt(clock, third, 10_000);
    expect((await third).at).toBe(WINDOW_MS);
    // The fourth waits for the moved grant to leave the window, not for its first time.
    const fourth = budget.acquire(LIVE);
    await settledAt(clock, fourth, 10_000);
    expect((await fourth).at).toBe(1_000 + WINDOW_MS);
  });

  it('is moved when a 429’s pause ends, not during it', async () => {
    const clock = new ManualClock(0);
    const budget = new TokenBudget('key', LIMITS, clock, new MemoryGrantLedger());
    const grant = await budget.acquire(LIVE);
    await clock.advance(1_000);
    await budget.throttled(4_000);
    const moved = budget.restamp(grant, LIVE);
    await clock.advance(2_900);
    expect(budget.view().pausedUntil).toBe(4_000);
    await settledAt(clock, moved, 10_000);
    expect(await moved).toEqual({ at: 4_000, priority: 'live' });
  });

  it('is claimed again in turn when it left the window, which another process filled', async () => {
    const clock = new ManualClock(0);
    const ledger = new MemoryGrantLedger();
    const budget = new TokenBudget('key', LIMITS, clock, ledger);
    const other = new TokenBudget('key', LIMITS, clock, ledger);
    const grant = await budget.acquire(LIVE);
    await clock.advance(WINDOW_MS + 500);
    await other.acquire(LIVE);
    await other.acquire(LIVE);
    const again = budget.restamp(grant, LIVE);
    await settledAt(clock, again, 20_000);
    // Not moved into the full window: taken when the other process's first grant left it.
    expect(await again).toEqual({ at: 2 * WINDOW_MS + 500, priority: 'live' });
    expect(await ledger.recent('key', clock.now(), WINDOW_MS)).toEqual([2 * WINDOW_MS + 500]);
  });
});
