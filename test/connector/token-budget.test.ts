import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { type GrantLedger, MemoryGrantLedger } from '../../shared/connector/budget/grant-ledger.ts';
import { sharedBudgetFor } from '../../shared/connector/budget/shared-budgets.ts';
import { busiestWindow } from '../../shared/connector/budget/sliding-log.ts';
import { type BudgetClaim, TokenBudget } from '../../shared/connector/budget/token-budget.ts';

const LIMITS = { requests: 200, windowMs: 30_000, marginMs: 500 };
const BULK: BudgetClaim = { priority: 'bulk' };
const LIVE: BudgetClaim = { priority: 'live', streamId: 'live-1', intervalMs: 5_000 };

function budgetOn(clock: ManualClock, ledger: GrantLedger = new MemoryGrantLedger()) {
  return new TokenBudget('key', LIMITS, clock, ledger);
}

async function advanceUntil(clock: ManualClock, done: () => boolean, stepMs = 100) {
  for (let i = 0; i < 100_000 && !done(); i++) await clock.advance(stepMs);
}

describe('TokenBudget', () => {
  it('never grants more than 200 in any window of 30 s plus the margin, under a burst of 1,000', async () => {
    const clock = new ManualClock(0);
    const grantedAt: number[] = [];
    const ledger = new MemoryGrantLedger();
    const budget = budgetOn(clock, {
      async take(key, nowMs, windowMs, capacity) {
        const result = await ledger.take(key, nowMs, windowMs, capacity);
        if (result.granted) grantedAt.push(nowMs);
        return result;
      },
      recent: (key, nowMs, windowMs) => ledger.recent(key, nowMs, windowMs),
    });
    const all = Array.from({ length: 1000 }, (_, i) => budget.acquire(i % 3 === 0 ? LIVE : BULK));
    await advanceUntil(clock, () => grantedAt.length === 1000, 250);
    await Promise.all(all);
    expect(busiestWindow(grantedAt, 30_500)).toBeLessThanOrEqual(200);
    // Five windows of requests take about five windows: the budget is used, not wasted.
    expect(grantedAt.at(-1)).toBeLessThan(5 * 30_500 * 1.02);
  });

  it('serves a live claim before bulk claims queued earlier', async () => {
    const clock = new ManualClock(0);
    const budget = budgetOn(clock);
    const order: string[] = [];
    const bulk = Array.from({ length: 20 }, (_, i) =>
      budget.acquire(BULK).then(() => order.push(`bulk-${i}`)),
    );
    await clock.advance(1000);
    const live = budget.acquire(LIVE).then(() => order.push('live'));
    await clock.advance(0);
    await live;
    // Bulk is paced (one per 30.5 s / capacity), so only a few bulk grants came first.
    expect(order.indexOf('live')).toBeLessThanOrEqual(8);
    await advanceUntil(clock, () => order.length === 21);
    await Promise.all(bulk);
  });

  it('paces bulk work evenly instead of spending the window in a burst', async () => {
    const clock = new ManualClock(0);
    const budget = budgetOn(clock);
    let granted = 0;
    for (let i = 0; i < 200; i++) void budget.acquire(BULK).then(() => granted++);
    for (let t = 0; t < 30; t++) await clock.advance(100);
    // 200 per 30.5 s is about 6.6 per second.
    expect(granted).toBeGreaterThanOrEqual(18);
    expect(granted).toBeLessThanOrEqual(22);
  });

  it('keeps a bulk claim that comes after its slot on the even schedule: the next one makes the lateness up', async () => {
    const clock = new ManualClock(0);
    const budget = budgetOn(clock);
    const interval = 30_500 / 200;
    const grantedAt: number[] = [];
    const take = () => budget.acquire(BULK).then(() => grantedAt.push(clock.now()));
    await take();
    await clock.advance(interval);
    await take();
    // The third claim comes 50 ms after its slot (a page that took longer to read).
    await clock.advance(interval + 50);
    await take();
    const fourth = take();
    await advanceUntil(clock, () => grantedAt.length === 4, 1);
    await fourth;
    expect(grantedAt.slice(2)).toEqual([2 * interval + 50, 3 * interval]);
  });

  it('holds a live reserve sized from the live streams’ intervals that bulk work cannot take', async () => {
    const clock = new ManualClock(0);
    const budget = budgetOn(clock);
    await budget.acquire({ priority: 'live', streamId: 's1', intervalMs: 1_000 });
    await budget.acquire({ priority: 'live', streamId: 's2', intervalMs: 1_000 });
    expect(budget.view().liveReserve).toBe(62);
    let granted = 0;
    for (let i = 0; i < 400; i++) void budget.acquire(BULK).then(() => granted++);
    await clock.advance(30_000);
    expect(granted + 2).toBeLessThanOrEqual(200 - 62 + 2);
    expect(budget.view().queued.bulk).toBeGreaterThan(0);
    // A live poll still finds a slot at once.
    const at = clock.now();
    await budget.acquire({ priority: 'live', streamId: 's1', intervalMs: 1_000 });
    expect(clock.now()).toBe(at);
  });

  it('pauses every claim until a 429’s Retry-After, then takes a lower pace for a while', async () => {
    const clock = new ManualClock(0);
    const budget = budgetOn(clock);
    budget.throttled(2_000);
    let grantedAt = -1;
    const waiting = budget.acquire(LIVE).then(() => {
      grantedAt = clock.now();
    });
    await clock.advance(1_999);
    expect(grantedAt).toBe(-1);
    await clock.advance(1);
    await waiting;
    expect(grantedAt).toBe(2_000);
    expect(budget.view().limit).toBe(150);
    await clock.advance(2 * 30_000);
    expect(budget.view().limit).toBe(200);
  });

  it('knows, when it starts, what the last window already spent (a restart, another process)', async () => {
    const clock = new ManualClock(0);
    const ledger = new MemoryGrantLedger();
    const before = budgetOn(clock, ledger);
    let first = 0;
    for (let i = 0; i < 200; i++) void before.acquire(LIVE).then(() => first++);
    await advanceUntil(clock, () => first === 200, 10);
    const after = budgetOn(clock, ledger);
    let grantedAt = -1;
    const waiting = after.acquire(LIVE).then(() => {
      grantedAt = clock.now();
    });
    await advanceUntil(clock, () => grantedAt >= 0);
    await waiting;
    expect(grantedAt).toBeGreaterThanOrEqual(30_500);
  });

  it('shares one budget per AccessToken and ledger in a process, never keyed by the token itself', () => {
    const clock = new ManualClock(0);
    const ledger = new MemoryGrantLedger();
    expect(sharedBudgetFor('token-a', LIMITS, clock, ledger)).toBe(
      sharedBudgetFor('token-a', LIMITS, clock, ledger),
    );
    expect(sharedBudgetFor('token-a', LIMITS, clock, ledger)).not.toBe(
      sharedBudgetFor('token-b', LIMITS, clock, ledger),
    );
    expect(sharedBudgetFor('token-a', LIMITS, clock, ledger)).not.toBe(
      sharedBudgetFor('token-a', LIMITS, clock, new MemoryGrantLedger()),
    );
  });
});
