import { describe, expect, it } from 'vitest';
import { DRAIN_MOST_MS, drainOutstanding } from './drain.ts';

/** A clock that a drain's sleeps move, and a count of what is outstanding at each instant. */
function simulatedDrain(outstandingAt: (ms: number) => number) {
  let now = 0;
  return {
    run: (stallMs: number) =>
      drainOutstanding(
        () => outstandingAt(now),
        stallMs,
        async (ms) => {
          now += ms;
        },
        () => now,
      ),
    now: () => now,
  };
}

describe('drainOutstanding', () => {
  it('ends at once when nothing is outstanding', async () => {
    const drain = simulatedDrain(() => 0);
    expect(await drain.run(60_000)).toBe(0);
    expect(drain.now()).toBe(0);
  });

  it('goes on past its stall time while deliveries still arrive, and ends when the last has', async () => {
    // 1,000 awaited, one arriving every 400 ms: 400 s in all, far past a 60 s stall time.
    const drain = simulatedDrain((ms) => Math.max(0, 1_000 - Math.floor(ms / 400)));
    expect(await drain.run(60_000)).toBe(0);
    expect(drain.now()).toBe(400_000);
  });

  it('ends once nothing more has arrived for its stall time', async () => {
    // 10 arrive in the first 5 s, then 5 never do.
    const drain = simulatedDrain((ms) => Math.max(5, 15 - Math.floor(ms / 500)));
    expect(await drain.run(60_000)).toBe(5);
    expect(drain.now()).toBe(5_000 + 60_000);
  });

  it('counts as progress only a count below the fewest seen', async () => {
    // 3 outstanding, flickering to 4 and back: no progress, so it ends after the stall time.
    const drain = simulatedDrain((ms) => (Math.floor(ms / 250) % 2 === 0 ? 3 : 4));
    expect(await drain.run(10_000)).toBe(3);
    expect(drain.now()).toBe(10_000);
  });

  it('ends after DRAIN_MOST_MS however long deliveries keep arriving', async () => {
    const drain = simulatedDrain((ms) => 1_000_000 - Math.floor(ms / 250));
    expect(await drain.run(60_000)).toBeGreaterThan(0);
    expect(drain.now()).toBe(DRAIN_MOST_MS);
  });
});
