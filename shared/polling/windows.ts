import {
  addUtcMonths,
  isWithinThreeMonths,
  TIME_FILTER_MAX_MONTHS,
} from '../connector/records/common.ts';

/** A half-open UpdatedUtc interval `[startUtc, endUtc)` (design.md, Time filters). */
export interface PollWindow {
  startUtc: string;
  endUtc: string;
}

/** How windows are placed in time. */
export interface WindowSettings {
  /** Re-read this much before the watermark, so records that settled late are not missed. */
  overlapMs: number;
  /** End windows this long before now: the service may still be writing the last moments. */
  settleLagMs: number;
  /** Where a first sync starts when a stream has no watermark. */
  historyStartMs: number;
  /** Smallest window worth a request. */
  minWindowMs: number;
}

/**
 * The next window of a windowed stream: from (watermark − overlap), or the history start on a
 * first sync, to (now − settle lag), cut to at most three months so a first sync from long ago
 * is split into several windows. Returns null when there is nothing worth asking yet.
 * Pure: `nowMs` is given.
 */
export function nextWindow(
  watermark: string | null,
  nowMs: number,
  settings: WindowSettings,
): PollWindow | null {
  const start =
    watermark === null ? settings.historyStartMs : Date.parse(watermark) - settings.overlapMs;
  const target = nowMs - settings.settleLagMs;
  if (target - start < settings.minWindowMs) return null;
  const end = Math.min(target, addUtcMonths(start, TIME_FILTER_MAX_MONTHS));
  const window = { startUtc: new Date(start).toISOString(), endUtc: new Date(end).toISOString() };
  if (!isWithinThreeMonths(window.startUtc, window.endUtc)) {
    // Calendar arithmetic and the schema agree by construction; guard against drift anyway.
    throw new RangeError(
      `window ${window.startUtc}..${window.endUtc} exceeds ${TIME_FILTER_MAX_MONTHS} months`,
    );
  }
  return window;
}

/** True when the window reaches the settle-lagged present, i.e. the stream is caught up after it. */
export function reachesPresent(
  window: PollWindow,
  nowMs: number,
  settings: WindowSettings,
): boolean {
  return Date.parse(window.endUtc) >= nowMs - settings.settleLagMs - settings.minWindowMs;
}
