import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  type ExpirySweepsOptions,
  nextSweepDueAt,
  startExpirySweeps,
} from '../../shared/local/expiry-sweeps.ts';

const MINUTE_MS = 60_000;
const EVERY_MS = 60 * MINUTE_MS;

/** The clock the sweeps wait on and read; each test's own. */
let clock: ManualClock;

/** Sweeps over a record of the last sweep kept in memory, on the test's manual clock. */
function sweepsWith(
  overrides: Partial<Pick<ExpirySweepsOptions, 'sweep'>> & { recordedAt?: number } = {},
) {
  let lastSweptAt = overrides.recordedAt;
  const sweep = vi.fn(overrides.sweep ?? (async () => 0));
  const onRemoved = vi.fn();
  const onError = vi.fn();
  const sweeps = startExpirySweeps({
    onRemoved,
    onError,
    firstLookAfterMs: MINUTE_MS,
    everyMs: EVERY_MS,
    sweep,
    clock,
    lastSweptAt: async () => lastSweptAt,
    noteSwept: async (atMs) => {
      lastSweptAt = atMs;
    },
  });
  return { sweeps, sweep, onRemoved, onError, lastSwept: () => lastSweptAt };
}

describe('nextSweepDueAt', () => {
  it('is everyMs after the last sweep, or now when none is recorded', () => {
    expect(nextSweepDueAt(1_000, 5_000, 10_000)).toBe(11_000);
    expect(nextSweepDueAt(undefined, 5_000, 10_000)).toBe(5_000);
  });
});

describe('startExpirySweeps', () => {
  // A manual clock rather than fake timers: nothing another test file left running in the same
  // process (its timers re-armed under the fakes) can make an hour of fake time last for ever.
  beforeEach(() => {
    clock = new ManualClock(1_000_000_000);
  });

  it('sweeps at its first look when no sweep is recorded, records it, and sweeps again everyMs later', async () => {
    const { sweeps, sweep, lastSwept } = sweepsWith();

    await clock.advance(MINUTE_MS - 1);
    expect(sweep).not.toHaveBeenCalled();
    await clock.advance(1);
    expect(sweep).toHaveBeenCalledTimes(1);
    expect(lastSwept()).toBe(clock.now());
    await clock.advance(EVERY_MS - 1);
    expect(sweep).toHaveBeenCalledTimes(1);
    await clock.advance(1);
    expect(sweep).toHaveBeenCalledTimes(2);
    await sweeps.stop();
  });

  it('leaves a store swept recently until its next sweep is due, across runs', async () => {
    // The last run swept 50 minutes ago: the next is due 10 minutes from now.
    const { sweeps, sweep } = sweepsWith({ recordedAt: clock.now() - 50 * MINUTE_MS });

    await clock.advance(10 * MINUTE_MS - 1);
    expect(sweep).not.toHaveBeenCalled();
    await clock.advance(1);
    expect(sweep).toHaveBeenCalledTimes(1);
    await sweeps.stop();
  });

  it('tells only the sweeps that removed something', async () => {
    const removed = [3, 0, 7];
    const { sweeps, onRemoved } = sweepsWith({ sweep: async () => removed.shift() ?? 0 });

    await clock.advance(MINUTE_MS + 2 * EVERY_MS);
    expect(onRemoved.mock.calls).toEqual([[3], [7]]);
    await sweeps.stop();
  });

  it('tells a failed sweep, records none, and looks again everyMs later', async () => {
    let calls = 0;
    const { sweeps, sweep, onError, lastSwept } = sweepsWith({
      sweep: async () => {
        if (++calls === 1) throw new Error('store closed');
        return 1;
      },
    });

    await clock.advance(MINUTE_MS);
    expect(onError).toHaveBeenCalledWith(new Error('store closed'));
    expect(lastSwept()).toBeUndefined();
    await clock.advance(EVERY_MS);
    expect(sweep).toHaveBeenCalledTimes(2);
    expect(lastSwept()).toBe(clock.now());
    await sweeps.stop();
  });

  it('stop ends the sweep under way through its signal, waits for it, records nothing and schedules none', async () => {
    let finish: (() => void) | undefined;
    let seen: AbortSignal | undefined;
    const { sweeps, sweep, lastSwept } = sweepsWith({
      sweep: async (signal) => {
        seen = signal;
        await new Promise<void>((resolve) => {
          finish = resolve;
        });
        return 5;
      },
    });
    await clock.advance(MINUTE_MS);

    let stopped = false;
    const stopping = sweeps.stop().then(() => {
      stopped = true;
    });
    await clock.advance(0);
    expect(seen?.aborted).toBe(true);
    expect(stopped).toBe(false);
    finish?.();
    await stopping;
    expect(lastSwept()).toBeUndefined();
    await clock.advance(2 * EVERY_MS);
    expect(sweep).toHaveBeenCalledTimes(1);
  });
});
