import { describe, expect, it } from 'vitest';
import { isWithinThreeMonths } from '../../shared/connector/records/common.ts';
import { nextWindow, reachesPresent, type WindowSettings } from '../../shared/polling/windows.ts';

const SETTINGS: WindowSettings = {
  overlapMs: 30_000,
  settleLagMs: 5_000,
  historyStartMs: Date.parse('2025-01-01T00:00:00Z'),
  minWindowMs: 0,
};
const NOW = Date.parse('2026-11-21T10:00:00Z');

describe('nextWindow', () => {
  it('starts at watermark minus overlap and ends at now minus settle lag', () => {
    expect(nextWindow('2026-11-21T09:59:00.000Z', NOW, SETTINGS)).toEqual({
      startUtc: '2026-11-21T09:58:30.000Z',
      endUtc: '2026-11-21T09:59:55.000Z',
    });
  });

  it('splits a first sync from long ago into windows of at most three months', () => {
    const windows = [];
    let watermark: string | null = null;
    for (;;) {
      const window = nextWindow(watermark, NOW, { ...SETTINGS, overlapMs: 0 });
      if (!window) break;
      windows.push(window);
      expect(isWithinThreeMonths(window.startUtc, window.endUtc)).toBe(true);
      watermark = window.endUtc;
      if (reachesPresent(window)) break;
    }
    expect(windows[0]!.startUtc).toBe('2025-01-01T00:00:00.000Z');
    expect(windows[0]!.endUtc).toBe('2025-04-01T00:00:00.000Z');
    expect(windows.at(-1)!.endUtc).toBe('2026-11-21T09:59:55.000Z');
    expect(windows).toHaveLength(8);
  });

  it('returns null when the window would be shorter than the minimum', () => {
    expect(
      nextWindow('2026-11-21T09:59:55.000Z', NOW, { ...SETTINGS, overlapMs: 0, minWindowMs: 1000 }),
    ).toBeNull();
  });

  it('plans no empty window when the settle-lagged present is the window start', () => {
    // [start, start) holds nothing (half-open): it would cost a request that cannot hold news.
    const settings = { ...SETTINGS, overlapMs: 0, minWindowMs: 0 };
    expect(nextWindow('2026-11-21T09:59:55.000Z', NOW, settings)).toBeNull();
    expect(nextWindow(null, SETTINGS.historyStartMs + SETTINGS.settleLagMs, settings)).toBeNull();
    expect(nextWindow('2026-11-21T09:59:54.999Z', NOW, settings)).toEqual({
      startUtc: '2026-11-21T09:59:54.999Z',
      endUtc: '2026-11-21T09:59:55.000Z',
    });
  });

  it('plans no window when the settle lag puts the present before the window start', () => {
    const lagged = { ...SETTINGS, settleLagMs: 60_000 };
    expect(nextWindow('2026-11-21T09:59:55.000Z', NOW, lagged)).toBeNull();
  });

  it('counts a window as reaching the present unless the three-month limit cut it', () => {
    expect(
      reachesPresent({ startUtc: '2026-01-01T00:00:00.000Z', endUtc: '2026-04-01T00:00:00.000Z' }),
    ).toBe(false);
    expect(
      reachesPresent({ startUtc: '2026-01-01T00:00:00.000Z', endUtc: '2026-03-31T23:59:59.000Z' }),
    ).toBe(true);
  });
});
