import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { BudgetClaim } from '../../shared/connector/budget/budget-types.ts';
import { type GrantLedger, MemoryGrantLedger } from '../../shared/connector/budget/grant-ledger.ts';
import { sharedBudgetFor } from '../../shared/connector/budget/shared-budgets.ts';
import { busiestWindow } from '../../shared/connector/budget/sliding-log.ts';
import { TokenBudget } from '../../shared/connector/budget/token-budget.ts';

const LIMITS = { requests: 200, windowMs: 30_000, marginMs: 500 };
const BULK: BudgetClaim = { priority: 'bulk' };
const LIVE: BudgetClaim = { priority: 'live', streamId: 'live-1', intervalMs: 5_000 };

function budgetOn(clock: ManualClock, ledger: GrantLedger = new MemoryGrantLedger()) {
  return new TokenBudget('key', LIMITS, clock, ledger);
}

/** A memory ledger that notes the time of every grant it makes in `grantedAt`. */
function countingLedger(grantedAt: number[]): GrantLedger {
  const ledger = new MemoryGrantLedger();
  return {
    async take(key, now, windowMs, capacity) {
      const result = await ledger.take(key, now, windowMs, capacity);
      if (result.granted) grantedAt.push(result.at);
      return result;
    },
    recent: (key, nowMs, windowMs) => ledger.recent(key, nowMs, windowMs),
    pause: (key, untilMs) => ledger.pause(key, untilMs),
    release: (key, given) => ledger.release(key, given),
    restamp: (...args) => ledger.restamp(...args),
  };
}

async function advanceUntil(clock: ManualClock, done: () => boolean, stepMs = 100) {
  for (let i = 0; i < 100_000 && !done(); i++) await clock.advance(stepMs);
}

describe('TokenBudget', () => {
  it('never grants more than 200 in any window of 30 s plus the margin, under a burst of 1,000', async () => {
    const clock = new ManualClock(0);
    const grantedAt: number[] = [];
    const budget = budgetOn(clock, countingLedger(grantedAt));
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
    const bulk = Array.from({ length: 150 }, (_, i) =>
      budget.acquire(BULK).then(() => order.push(`bulk-${i}`)),
    );
    await clock.advance(1000);
    const live = budget.acquire(LIVE).then(() => order.push('live'));
    await clock.advance(0);
    await live;
    // Half the window went at once (100), then one bulk grant per 305 ms: a few came first.
    expect(order.indexOf('live')).toBeGreaterThanOrEqual(100);
    expect(order.indexOf('live')).toBeLessThanOrEqual(105);
    await advanceUntil(clock, () => order.length === 151);
    await Promise.all(bulk);
  });

  it('spends half the window at once on bulk work while no live stream polls, then spreads the rest until the burst ages out', async () => {
    const clock = new ManualClock(0);
    const budget = budgetOn(clock);
    const grantedAt: number[] = [];
    for (let i = 0; i < 600; i++) void budget.acquire(BULK).then(() => grantedAt.push(clock.now()));
    await clock.advance(0);
    expect(grantedAt).toHaveLength(100);
    await clock.advance(15_250);
    expect(grantedAt.length).toBeGreaterThanOrEqual(148);
    expect(grantedAt.length).toBeLessThanOrEqual(152);
    // The window is never full before its oldest grant ages out: a slot always frees soon.
    await advanceUntil(clock, () => clock.now() >= 30_400, 50);
    expect(grantedAt.length).toBeLessThan(200);
    // A live poll the reserve did not foresee waits one spread interval at most.
    const asked = clock.now();
    let liveAt = -1;
    const live = budget
      .acquire({ priority: 'live', streamId: 'new', intervalMs: 60_000 })
      .then(() => {
        liveAt = clock.now();
      });
    await advanceUntil(clock, () => liveAt >= 0, 10);
    await live;
    expect(liveAt - asked).toBeLessThanOrEqual(400);
    // A long backfill runs at the full rate, 200 per 30.5 s (99 % of it, one slot held free).
    await advanceUntil(clock, () => clock.now() >= 3 * 30_500 - 100, 50);
    expect(grantedAt.length + 1).toBeGreaterThanOrEqual(0.99 * 3 * 200);
    expect(busiestWindow([...grantedAt, liveAt], 30_500)).toBeLessThanOrEqual(200);
  });

  it('paces bulk work evenly while a live stream polls, instead of spending the window in a burst', async () => {
    const clock = new ManualClock(0);
    const budget = budgetOn(clock);
    await budget.acquire(LIVE);
    let granted = 0;
    for (let i = 0; i < 200; i++) void budget.acquire(BULK).then(() => granted++);
    for (let t = 0; t < 30; t++) await clock.advance(100);
    // The live stream reserves 7 requests a window: 193 per 30.5 s is about 6.3 per second.
    expect(granted).toBeGreaterThanOrEqual(17);
    expect(granted).toBeLessThanOrEqual(21);
  });

  it('spreads live grants over the window when the live streams ask more than the budget, instead of stalling them all', async () => {
    const clock = new ManualClock(0);
    const grantedAt: number[] = [];
    const budget = budgetOn(clock, countingLedger(grantedAt));
    // Eleven streams polled every second ask 11 × 31 = 341 requests a window of 200.
    const grants = new Map<string, number[]>();
    let running = true;
    const streams = Array.from({ length: 11 }, async (_, n) => {
      const streamId = `live-${n}`;
      const own: number[] = [];
      grants.set(streamId, own);
      while (running) {
        await budget.acquire({ priority: 'live', streamId, intervalMs: 1_000 });
        own.push(clock.now());
        await clock.sleep(1_000);
      }
    });
    for (let t = 0; t < 1_200; t++) await clock.advance(50);
    running = false;
    expect(busiestWindow(grantedAt, 30_500)).toBeLessThanOrEqual(200);
    // The budget is used (about 200 a window over the minute), and no stream waits long.
    expect(grantedAt.length).toBeGreaterThan(370);
    for (const own of grants.values()) {
      const gaps = own.slice(1).map((at, i) => at - own[i]!);
      expect(Math.max(...gaps)).toBeLessThan(2_500);
    }
    await clock.advance(5_000);
    await Promise.all(streams);
  });

  /**
   * `streams` live streams polled every second beside a bulk loop for two windows (50 ms steps):
   * the grants, the bulk ones, and each live stream's longest gap between polls and wait.
   */
  async function liveBesideBulk(streams: number) {
    const clock = new ManualClock(0);
    const grantedAt: number[] = [];
    const budget = budgetOn(clock, countingLedger(grantedAt));
    const lastLive = new Map<string, number>();
    let longestLiveGap = 0;
    let longestLiveWait = 0;
    let running = true;
    const live = Array.from({ length: streams }, async (_, n) => {
      const streamId = `live-${n}`;
      while (running) {
        const asked = clock.now();
        await budget.acquire({ priority: 'live', streamId, intervalMs: 1_000 });
        longestLiveWait = Math.max(longestLiveWait, clock.now() - asked);
        const last = lastLive.get(streamId);
        if (last !== undefined) longestLiveGap = Math.max(longestLiveGap, clock.now() - last);
        lastLive.set(streamId, clock.now());
        await clock.sleep(1_000);
      }
    });
    let bulkGranted = 0;
    const bulk = (async () => {
      while (running) {
        await budget.acquire(BULK);
        bulkGranted += 1;
      }
    })();
    for (let t = 0; t < 1_220; t++) await clock.advance(50);
    running = false;
    const busiest = busiestWindow(grantedAt, 30_500);
    const granted = grantedAt.length;
    for (let t = 0; t < 100; t++) await clock.advance(100);
    await Promise.all([...live, bulk]);
    return { busiest, granted, bulkGranted, longestLiveGap, longestLiveWait };
  }

  it('leaves bulk work (a first sync, a sweep) its fifth while the live streams ask more than the budget', async () => {
    const run = await liveBesideBulk(11);
    expect(run.busiest).toBeLessThanOrEqual(200);
    // About 40 a window each over two windows: the first sync is not starved (it got 0).
    expect(run.bulkGranted).toBeGreaterThan(70);
    expect(run.granted - run.bulkGranted).toBeGreaterThan(300);
    // Eleven streams share 160 a window: each polls every 2.1 s or so, none stalls.
    expect(run.longestLiveGap).toBeLessThan(2_600);
  });

  it('keeps live streams asking four fifths of the budget on time beside bulk work, which keeps the rest', async () => {
    // Five streams polled every second ask 155 of 200 a window (a backfill's streams polling live).
    const run = await liveBesideBulk(5);
    expect(run.busiest).toBeLessThanOrEqual(200);
    // Half the budget held back for them left a live poll waiting behind bulk work for 10.5 s;
    // three quarters, 0.5 s (a poll every 1.5 s). The clock moves in steps of 50 ms.
    expect(run.longestLiveWait).toBeLessThanOrEqual(50);
    expect(run.longestLiveGap).toBeLessThanOrEqual(1_050);
    expect(run.bulkGranted).toBeGreaterThan(60);
  });

  it('spreads live streams asking more than four fifths over them beside bulk work, none waiting long', async () => {
    // Six streams polled every second ask 186 of 200 a window: served at once, they filled the
    // window beside bulk work's fifth and then waited up to 4.5 s for a slot.
    const run = await liveBesideBulk(6);
    expect(run.busiest).toBeLessThanOrEqual(200);
    // Spread over 160 a window: each stream polls every 1.14 s, and the sixth of six asking
    // together waits five slots (0.95 s).
    expect(run.longestLiveGap).toBeLessThanOrEqual(1_200);
    expect(run.longestLiveWait).toBeLessThan(1_000);
    expect(run.bulkGranted).toBeGreaterThan(60);
  });

  it('keeps a bulk claim that comes after its slot on the spread schedule: the next one makes the lateness up', async () => {
    const clock = new ManualClock(0);
    const budget = budgetOn(clock);
    await Promise.all(Array.from({ length: 100 }, () => budget.acquire(BULK)));
    // 100 slots left, spread over the 30.5 s until the burst ages out.
    const interval = 30_500 / 100;
    const grantedAt: number[] = [];
    const take = () => budget.acquire(BULK).then(() => grantedAt.push(clock.now()));
    await clock.advance(interval);
    await take();
    // The next claim comes 50 ms after its slot (a page that took longer to read).
    await clock.advance(interval + 50);
    await take();
    const third = take();
    await advanceUntil(clock, () => grantedAt.length === 3, 1);
    await third;
    expect(grantedAt).toEqual([interval, 2 * interval + 50, 3 * interval]);
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

  it('sends nothing before a Retry-After that came back while the ledger was answering', async () => {
    const clock = new ManualClock(0);
    const memory = new MemoryGrantLedger();
    let answer: (() => void) | undefined;
    const slowLedger: GrantLedger = {
      async take(key, now, windowMs, capacity) {
        await new Promise<void>((resolve) => {
          answer = resolve;
        });
        return memory.take(key, now, windowMs, capacity);
      },
      recent: (key, nowMs, windowMs) => memory.recent(key, nowMs, windowMs),
      pause: (key, untilMs) => memory.pause(key, untilMs),
      release: (key, given) => memory.release(key, given),
      restamp: (...args) => memory.restamp(...args),
    };
    const budget = budgetOn(clock, slowLedger);
    let grantedAt = -1;
    const granted = budget.acquire(LIVE).then(() => {
      grantedAt = clock.now();
    });
    await clock.advance(0);
    // Another request's 429 arrives meanwhile: nothing may go before 10 s.
    budget.throttled(10_000);
    await clock.advance(5);
    answer?.();
    await clock.advance(0);
    expect(grantedAt).toBe(-1);
    await advanceUntil(clock, () => grantedAt >= 0);
    answer?.();
    await advanceUntil(clock, () => grantedAt >= 0);
    await granted;
    expect(grantedAt).toBeGreaterThanOrEqual(10_000);
  });

  it('holds every process of the token for a Retry-After another process was answered', async () => {
    const clock = new ManualClock(0);
    const ledger = new MemoryGrantLedger();
    const answered = budgetOn(clock, ledger);
    const other = budgetOn(clock, ledger);
    answered.throttled(4_000);
    await clock.advance(0);
    let grantedAt = -1;
    const granted = other.acquire(LIVE).then(() => {
      grantedAt = clock.now();
    });
    await advanceUntil(clock, () => grantedAt >= 0);
    await granted;
    expect(grantedAt).toBeGreaterThanOrEqual(4_000);
    // It keeps the lower pace after the pause too, as the process answered 429 does.
    expect(other.view().limit).toBe(150);
  });

  it('keeps no more than a window of live grants in a process that only polls live', async () => {
    const clock = new ManualClock(0);
    const budget = budgetOn(clock);
    // One stream polled every second for an hour, and never a bulk claim.
    for (let i = 0; i < 3_600; i++) {
      await budget.acquire({ priority: 'live', streamId: 's', intervalMs: 1_000 });
      await clock.advance(1_000);
    }
    const kept = (budget as unknown as { liveGrantTimes: number[] }).liveGrantTimes.length;
    expect(kept).toBeLessThanOrEqual(32);
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

  it('takes back a grant whose request was never sent: a claim waiting for a slot gets it at once', async () => {
    const clock = new ManualClock(0);
    const ledger = new MemoryGrantLedger();
    const budget = new TokenBudget(
      'key',
      { requests: 2, windowMs: 3_000, marginMs: 0 },
      clock,
      ledger,
    );
    const refused = await budget.acquire({ priority: 'live' });
    expect(refused).toEqual({ at: 0, priority: 'live' });
    await clock.advance(100);
    await budget.acquire({ priority: 'live' });
    let grantedAt = -1;
    const waiting = budget.acquire({ priority: 'live' }).then(() => {
      grantedAt = clock.now();
    });
    await clock.advance(100);
    expect(grantedAt).toBe(-1);
    await budget.giveBack(refused);
    await clock.advance(0);
    await waiting;
    expect(grantedAt).toBe(200);
    expect(await ledger.recent('key', 200, 3_000)).toEqual([100, 200]);
    expect(budget.view().requestsInWindow).toBe(2);
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
