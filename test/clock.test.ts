import { describe, expect, it } from 'vitest';
import { backgroundClock, systemClock } from '../shared/clock.ts';

/** Timers that keep this process alive (unref'd ones are not counted). */
const refTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('backgroundClock', () => {
  it('sleeps on a timer that keeps no process alive, where systemClock keeps it', async () => {
    const before = refTimers();
    const stop = new AbortController();
    const background = backgroundClock.sleep(60_000, stop.signal).catch(() => 'aborted');
    expect(refTimers()).toBe(before);
    const system = systemClock.sleep(60_000, stop.signal).catch(() => 'aborted');
    expect(refTimers()).toBe(before + 1);
    stop.abort();
    expect(await Promise.all([background, system])).toEqual(['aborted', 'aborted']);
  });

  it('wakes after its time, on the wall clock', async () => {
    const started = backgroundClock.now();
    await backgroundClock.sleep(20);
    expect(backgroundClock.now() - started).toBeGreaterThanOrEqual(19);
  });
});
