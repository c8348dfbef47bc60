/**
 * Pure pacing of a token's budget: how many grants a window may hold (lower for a while after a
 * 429), and when the next live or bulk grant may come on its even schedule.
 */
import { liveGrants } from './sliding-log.ts';

/**
 * Share of the bulk capacity a window may spend at once while no live stream polls: a first
 * sync smaller than a window's budget is not stretched over the window.
 */
export const BULK_BURST_SHARE = 0.5;
/** How long after its last grant bulk work counts as running (its loop asks again at once). */
export const BULK_RUNNING_MS = 1_000;
/**
 * Pace after a 429: the server knows better than our count, so take this share of the limit for
 * a while. It is reached by spacing, never by a stop: bulk claims wait while the window holds
 * more than the share leaves them, and live claims may still bring the window to the server's
 * own limit, spread over the share (over four fifths of it while bulk work runs) when they ask
 * more. The window falls to the share as the grants made before the 429 age out, within one
 * window, while live polls go on. As a cap on every claim, a window holding more than the share
 * when the Retry-After ended granted nothing, live polls included, until it aged below it (the
 * soak: 4.4 to 5.1 s with no request after a 1 s Retry-After, 176 live requests a window).
 */
export const PACE_AFTER_THROTTLE = 0.75;
/** How long the lower pace lasts after the Retry-After has passed, in windows. */
export const SLOW_WINDOWS_AFTER_THROTTLE = 2;

/** A paced slot: when the next grant may come, and the interval it keeps from the last one. */
export interface PacedSlot {
  pacedAt: number;
  interval: number;
}

/**
 * Grants a window may hold: the server's `requests`, or {@link PACE_AFTER_THROTTLE} of them
 * while `slowed` after a 429; at least one. Pure.
 * @example pacedLimit(200, true) // 150
 */
export function pacedLimit(requests: number, slowed: boolean): number {
  const pace = slowed ? PACE_AFTER_THROTTLE : 1;
  return Math.max(1, Math.floor(requests * pace));
}

/**
 * When the next live grant may come: at once while the live streams ask no more than the
 * budget per window (`share` undefined); when they ask more (eleven streams polled every second
 * on one token ask 341), evenly over `share` grants a window from the last live slot. Served at
 * once, they would spend the window in its first 17 s and then every live poll would wait 13 s
 * for it to roll over; spread over the budget, each stream polls every 1.7 s or so, never
 * stalled. Pure.
 * @example liveSlot(5_000, 4_000, 30_000, 300) // { pacedAt: 4_100, interval: 100 }
 */
export function liveSlot(
  now: number,
  lastLiveSlotAt: number,
  windowMs: number,
  share: number | undefined,
): PacedSlot {
  if (share === undefined) return { pacedAt: now, interval: 0 };
  const interval = windowMs / share;
  return { pacedAt: lastLiveSlotAt + interval, interval };
}

/** What {@link bulkSlot} paces from. */
export interface BulkPacing {
  now: number;
  /** The pacing slot of the last bulk grant (-Infinity before the first). */
  lastBulkSlotAt: number;
  /** The grants the window held when last seen, oldest first. */
  grants: readonly number[];
  windowMs: number;
  /** The bulk capacity to pace over. */
  capacity: number;
  /** Whether a live stream polls the token. */
  livePolling: boolean;
}

/**
 * When the next bulk grant may come, and the interval it keeps from the last one. While a
 * live stream polls on this token, bulk work keeps an even pace over the window, so the live
 * polls find a slot, and the process its CPU, at once. With no live stream: at once while the
 * window holds fewer than {@link BULK_BURST_SHARE} of the capacity, then the free slots spread
 * evenly from the last bulk slot until the oldest grant ages out. Pure.
 */
export function bulkSlot(pacing: BulkPacing): PacedSlot {
  const { now, lastBulkSlotAt, windowMs, capacity } = pacing;
  if (pacing.livePolling) {
    const interval = windowMs / Math.max(1, capacity);
    return { pacedAt: lastBulkSlotAt + interval, interval };
  }
  const counted = liveGrants(pacing.grants, now, windowMs);
  const free = capacity - counted.length;
  if (counted.length < Math.floor(capacity * BULK_BURST_SHARE) || free <= 0)
    return { pacedAt: now, interval: 0 };
  const from = Number.isFinite(lastBulkSlotAt) ? lastBulkSlotAt : now;
  const agesOutAt = (counted[0] ?? now) + windowMs;
  const interval = Math.max(0, agesOutAt - from) / free;
  return { pacedAt: from + interval, interval };
}

/**
 * The slot a grant made at `now` for `slot` takes on the schedule: its paced one when late by
 * less than an interval (the next comes that much sooner); later than that (a pause, the first
 * grant), `now`, where the schedule starts again. Pure.
 * @example slotKept(1_050, { pacedAt: 1_000, interval: 100 }) // 1_000
 */
export function slotKept(now: number, { pacedAt, interval }: PacedSlot): number {
  return now - pacedAt < interval ? pacedAt : now;
}
