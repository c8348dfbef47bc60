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
 * is split into several windows. Returns null when there is nothing worth asking yet: an end
 * at or before the start (a settle lag reaching back past it), or shorter than the minimum.
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
  // Half-open: `[start, start)` holds nothing, whatever the minimum (a request for no news).
  if (target <= start || target - start < settings.minWindowMs) return null;
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

/**
 * True when the window reached the (settle-lagged) present when it was planned, i.e. its end
 * was not cut by the three-month limit: the stream is caught up once it is done. Judged on the
 * window alone, since time moves on while it is paged.
 */
export function reachesPresent(window: PollWindow): boolean {
  return (
    Date.parse(window.endUtc) < addUtcMonths(Date.parse(window.startUtc), TIME_FILTER_MAX_MONTHS)
  );
}

/** A window reaching the present is catch-up work past this many of its stream's intervals behind… */
export const CATCH_UP_INTERVALS = 10;
/** …and past this long behind at the least (a stream polled every 5 s is not catching up after a minute). */
export const CATCH_UP_LEAST_MS = 15 * 60_000;

/**
 * True when a window is a live poll's: it reaches the present ({@link reachesPresent}) from a
 * watermark (its start plus the overlap) at most {@link CATCH_UP_INTERVALS} of the stream's
 * intervals behind, and never less than {@link CATCH_UP_LEAST_MS}. A window from further back
 * follows a stopped bridge or an outage and may hold any number of pages: it is catch-up work,
 * which takes what live polls leave of the budget and waits while the undelivered backlog is
 * above its bound (design.md, Rules of behaviour). Pure.
 * @example isLiveWindow({ startUtc: '2026-01-01T09:59:55.000Z', endUtc: '2026-01-01T10:00:05.000Z' }, 5_000, 5_000) // true
 */
export function isLiveWindow(window: PollWindow, overlapMs: number, intervalMs: number): boolean {
  if (!reachesPresent(window)) return false;
  const behindMs = Date.parse(window.endUtc) - Date.parse(window.startUtc) - overlapMs;
  return behindMs <= Math.max(CATCH_UP_INTERVALS * intervalMs, CATCH_UP_LEAST_MS);
}

/**
 * Whether the next poll of a caught-up windowed stream with no window in progress reads a live
 * window: none is due yet, or the one it would plan now ({@link nextWindow}) is a live poll's
 * ({@link isLiveWindow}). False after its polls stopped or failed for a while: that window is
 * catch-up work. Pure.
 */
export function plansLiveWindow(
  watermark: string | null,
  nowMs: number,
  settings: WindowSettings,
  intervalMs: number,
): boolean {
  const next = nextWindow(watermark, nowMs, settings);
  return next === null || isLiveWindow(next, settings.overlapMs, intervalMs);
}
