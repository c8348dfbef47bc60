import { describe, expect, it } from 'vitest';
import {
  type LogTimers,
  REFUSED_CONNECTIONS_LOG_INTERVAL_MS,
  RefusedConnectionsLog,
} from '../../shared/admin/refused-connections-log.ts';

/** Timers on a clock the test moves: `advance` runs those that come due. */
function fakeTimers() {
  let now = 0;
  let next = 0;
  const due = new Map<number, { at: number; run: () => void }>();
  const timers: LogTimers = {
    now: () => now,
    setTimeout: (run, ms) => {
      due.set(++next, { at: now + ms, run });
      return next;
    },
    clearTimeout: (handle) => due.delete(handle as number),
  };
  const advance = (ms: number) => {
    now += ms;
    for (const [handle, timer] of [...due]) {
      if (timer.at <= now) {
        due.delete(handle);
        timer.run();
      }
    }
  };
  return { timers, advance, scheduled: () => due.size };
}

describe('connections refused at the cap, logged', () => {
  it('logs the first refusal at once and those within 30 s as one line with their count', () => {
    const lines: string[] = [];
    const clock = fakeTimers();
    const log = new RefusedConnectionsLog('admin API', 128, (l) => lines.push(l), clock.timers);
    log.refused();
    expect(lines).toEqual(['admin API refused 1 connection: it holds at most 128 at once']);
    for (let i = 0; i < 500; i++) {
      clock.advance(10);
      log.refused();
    }
    expect(lines).toHaveLength(1);
    clock.advance(REFUSED_CONNECTIONS_LOG_INTERVAL_MS);
    expect(lines).toEqual([
      'admin API refused 1 connection: it holds at most 128 at once',
      'admin API refused 500 connections: it holds at most 128 at once',
    ]);
  });

  it('writes at most one line per 30 s under a steady flood, counting every refusal once', () => {
    const lines: string[] = [];
    const clock = fakeTimers();
    const log = new RefusedConnectionsLog('admin API', 128, (l) => lines.push(l), clock.timers);
    const minutes = 5;
    for (let i = 0; i < minutes * 60; i++) {
      log.refused();
      clock.advance(1_000);
    }
    log.close();
    expect(lines.length).toBeLessThanOrEqual(
      (minutes * 60_000) / REFUSED_CONNECTIONS_LOG_INTERVAL_MS + 1,
    );
    const counted = lines.map((l) => Number(/refused (\d+)/.exec(l)?.[1]));
    expect(counted.reduce((a, b) => a + b, 0)).toBe(minutes * 60);
  });

  it('logs nothing when none is refused, and leaves no timer once closed', () => {
    const lines: string[] = [];
    const clock = fakeTimers();
    const log = new RefusedConnectionsLog('admin API', 128, (l) => lines.push(l), clock.timers);
    clock.advance(REFUSED_CONNECTIONS_LOG_INTERVAL_MS * 3);
    expect(lines).toEqual([]);
    log.refused();
    log.refused();
    expect(clock.scheduled()).toBe(1);
    log.close();
    expect(clock.scheduled()).toBe(0);
    expect(lines).toHaveLength(2);
  });
});
