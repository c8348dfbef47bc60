import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { PlannerSleep } from '../../shared/polling/planner-sleep.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);
const TICK_MS = 1_000;

/** A planner whose tick began at T0, asleep until `wakeAfter` ms after T0; `wokeAt` is set once it wakes. */
function asleepUntil(wakeAfter: number) {
  const clock = new ManualClock(T0);
  const stop = new AbortController();
  const sleep = new PlannerSleep({ clock, tickMs: TICK_MS, signal: stop.signal });
  sleep.tickStarted(T0);
  const state: { wokeAt: number | undefined } = { wokeAt: undefined };
  void sleep.sleepUntil(T0 + wakeAfter).then(() => {
    state.wokeAt = clock.now() - T0;
  });
  /** Moves the clock to `ms` after T0. */
  const at = (ms: number) => clock.set(T0 + ms);
  return { clock, stop, sleep, state, at };
}

describe('the planner’s sleep between ticks', () => {
  it('sleeps until the wake time planned', async () => {
    const { state, at } = asleepUntil(1_000);
    await at(999);
    expect(state.wokeAt).toBeUndefined();
    await at(1_000);
    expect(state.wokeAt).toBe(1_000);
  });

  it('wakes at the earlier time a finished poll brings it forward to', async () => {
    const { sleep, state, at } = asleepUntil(1_000);
    await at(300);
    sleep.wakeBy(T0 + 400);
    await at(399);
    expect(state.wokeAt).toBeUndefined();
    await at(400);
    expect(state.wokeAt).toBe(400);
  });

  it('keeps the earlier wake time when a poll is due later than it', async () => {
    const { sleep, state, at } = asleepUntil(1_000);
    sleep.wakeBy(T0 + 2_000);
    sleep.wakeBy(T0 + 400);
    sleep.wakeBy(T0 + 700);
    await at(400);
    expect(state.wokeAt).toBe(400);
  });

  it('wakes no sooner than a tenth of a tick after the last tick began', async () => {
    const { sleep, state, at } = asleepUntil(1_000);
    await at(50);
    sleep.wakeBy(T0);
    await at(99);
    expect(state.wokeAt).toBeUndefined();
    await at(100);
    expect(state.wokeAt).toBe(100);
  });

  it('wakes at once for a poll due now once that tenth has passed', async () => {
    const { sleep, state, at } = asleepUntil(1_000);
    await at(500);
    sleep.wakeBy(T0 + 500);
    await at(500);
    expect(state.wokeAt).toBe(500);
  });

  it('ends the sleep when the loop stops, and sleeps no more after', async () => {
    const { clock, stop, sleep, state, at } = asleepUntil(1_000);
    stop.abort();
    await at(0);
    expect(state.wokeAt).toBe(0);
    let ended = false;
    void sleep.sleepUntil(T0 + 5_000).then(() => {
      ended = true;
    });
    await at(0);
    expect(ended).toBe(true);
    expect(clock.pendingSleeps).toBe(0);
  });
});
