import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { MemoryGrantLedger } from '../../shared/connector/budget/grant-ledger.ts';
import { TokenBudget } from '../../shared/connector/budget/token-budget.ts';

const LIMITS = { requests: 200, windowMs: 30_000, marginMs: 500 };
/** The soak's streams: eleven polled every 2 s ask 11 × 16 = 176 a window, above the 160 live share. */
const STREAMS = 11;
const INTERVAL_MS = 2_000;
const STEP_MS = 50;

/** One live claim: when it was asked, and how long it waited for its grant. */
interface LiveWait {
  askedAt: number;
  waitedMs: number;
}

/**
 * Polls `STREAMS` live streams every {@link INTERVAL_MS} through `budget` while `running()`,
 * noting each claim's wait in `waits`.
 */
function pollLive(
  budget: TokenBudget,
  clock: ManualClock,
  waits: LiveWait[],
  running: () => boolean,
) {
  return Array.from({ length: STREAMS }, async (_, n) => {
    while (running()) {
      const askedAt = clock.now();
      await budget.acquire({ priority: 'live', streamId: `hotel:s${n}`, intervalMs: INTERVAL_MS });
      waits.push({ askedAt, waitedMs: clock.now() - askedAt });
      await clock.sleep(INTERVAL_MS);
    }
  });
}

describe('a bulk claim the ledger refuses', () => {
  it('waits for its slot apart: the live claims queued meanwhile go on at their pace (a sweep right after a restart)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 3));
    const ledger = new MemoryGrantLedger();
    // The process killed: its live polls filled the window, and its live reserve stays recorded.
    const killed = new TokenBudget('token', LIMITS, clock, ledger);
    let killedRuns = true;
    const before = pollLive(killed, clock, [], () => killedRuns);
    for (let t = 0; t < 40_000; t += STEP_MS) await clock.advance(STEP_MS);
    killedRuns = false;

    // The process started again: its live streams and, at once, a sweep's request (bulk), which
    // the ledger refuses while the killed process's reserve and this one's, unused yet, hold
    // the window.
    const restarted = new TokenBudget('token', LIMITS, clock, ledger);
    const liveWaits: LiveWait[] = [];
    let runs = true;
    const live = pollLive(restarted, clock, liveWaits, () => runs);
    await clock.advance(STEP_MS);
    const sweepAskedAt = clock.now();
    let sweepGrantedAt: number | undefined;
    const sweep = restarted.acquire({ priority: 'bulk' }).then(() => {
      sweepGrantedAt = clock.now();
    });
    for (let t = 0; t < 60_000 && sweepGrantedAt === undefined; t += STEP_MS)
      await clock.advance(STEP_MS);
    runs = false;

    // The sweep waited for its slot: the restart's own live reserve, and the killed process's
    // until it lapses, hold the window...
    expect(sweepGrantedAt).toBeDefined();
    expect(sweepGrantedAt! - sweepAskedAt).toBeGreaterThan(20_000);
    // ...and the live polls asking meanwhile went on at their pace: 160 live grants a window
    // (one every 190 ms) serve the eleven streams within about 2 s. Before, the waiting sweep
    // held every queued live claim until its slot came: 25 grants in its 26.5 s, a live claim
    // waiting up to 20 s (the soak: 8.6 s without a grant, none detected).
    const meanwhile = liveWaits.filter(({ askedAt }) => askedAt >= sweepAskedAt);
    expect(meanwhile.length).toBeGreaterThan(0);
    expect(Math.max(...meanwhile.map(({ waitedMs }) => waitedMs))).toBeLessThan(2_500);

    for (let t = 0; t < 10_000; t += STEP_MS) await clock.advance(STEP_MS);
    await Promise.all([...before, ...live, sweep]);
  });
});
