/**
 * Pure arithmetic of a sliding-window request log: grant times in epoch ms, oldest first.
 * A grant at time t counts for [t, t + windowMs), as the Connector API counts arrivals.
 */

/** The grants still counting at `nowMs`, oldest first. Pure. */
export function liveGrants(grants: readonly number[], nowMs: number, windowMs: number): number[] {
  return grants.filter((time) => time > nowMs - windowMs).sort((a, b) => a - b);
}

/**
 * The first time at or after `nowMs` when fewer than `capacity` grants count, so one more may
 * be taken. `grants` must hold only live grants, oldest first. Pure.
 * @example slotFreeAt([1000, 2000], 2, 2500, 30_000) // 31_000
 */
export function slotFreeAt(
  grants: readonly number[],
  capacity: number,
  nowMs: number,
  windowMs: number,
): number {
  if (capacity <= 0) return nowMs + windowMs;
  if (grants.length < capacity) return nowMs;
  return Math.max(nowMs, grants[grants.length - capacity]! + windowMs);
}

/**
 * Most times inside any window `[t, t + windowMs)`: how a server counting arrivals in a
 * sliding window sees a log. Pure.
 * @example busiestWindow([0, 10_000, 29_999, 30_000], 30_000) // 3
 */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= windowMs) first++;
    best = Math.max(best, last - first + 1);
  }
  return best;
}

/**
 * Removes one grant taken at `at` from `grants`, in place (a grant given back or moved);
 * nothing when there is none.
 */
export function removeGrant(grants: number[], at: number): void {
  const index = grants.indexOf(at);
  if (index >= 0) grants.splice(index, 1);
}
