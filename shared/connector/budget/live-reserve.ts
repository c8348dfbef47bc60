/**
 * The live reserve of a token's budget: the requests its live streams make per window at their
 * intervals, which bulk work leaves free, capped at {@link LIVE_RESERVE_CAP_SHARE} of the limit.
 */
import type { BudgetClaim } from './budget-types.ts';

/**
 * Largest share of the budget the live reserve may hold back from bulk work: four fifths, so
 * live streams asking up to that never wait behind bulk work, which keeps at least a fifth.
 * Five streams polled every second ask 155 of 200: 31 each in the 30.5 s the budget counts.
 * Capped at three quarters (150), bulk work filled the window to 200 and their polls waited up
 * to 0.55 s for a slot to free. While bulk work runs beside live streams asking more than this
 * share, each side is paced over its own: live polls over four fifths, bulk work over a fifth.
 */
export const LIVE_RESERVE_CAP_SHARE = 0.8;

/** The most live polls may take of a window while bulk work runs: the reserve's cap. Pure. */
export function liveShareOf(limit: number): number {
  return Math.max(1, Math.floor(limit * LIVE_RESERVE_CAP_SHARE));
}

/**
 * Grants in the window bulk work may bring the total to: `limit` minus the part of the live
 * `reserve` the live streams have not used yet (`liveGrantsInWindow` of it). Pure.
 * @example bulkCapacityOf(200, 60, 20) // 160
 */
export function bulkCapacityOf(limit: number, reserve: number, liveGrantsInWindow: number): number {
  return limit - Math.max(0, reserve - liveGrantsInWindow);
}

/**
 * The live streams of one budget, by id, each with its polling interval and when it last
 * claimed: they size the live reserve until they go quiet.
 */
export class LiveStreams {
  private readonly streams = new Map<string, { intervalMs: number; seenAt: number }>();

  /** Notes a live claim of a stream that says its interval; other claims change nothing. */
  note(claim: BudgetClaim, now: number): void {
    if (claim.priority === 'live' && claim.streamId && claim.intervalMs)
      this.streams.set(claim.streamId, { intervalMs: claim.intervalMs, seenAt: now });
  }

  /**
   * Requests the live streams make per window (`windowMs`) at their intervals. A stream not
   * seen live for three intervals and a window has left live polling: it is dropped.
   */
  demand(now: number, windowMs: number): number {
    let demand = 0;
    for (const [streamId, { intervalMs, seenAt }] of this.streams) {
      if (now - seenAt > 3 * intervalMs + windowMs) this.streams.delete(streamId);
      else demand += Math.ceil(windowMs / intervalMs);
    }
    return demand;
  }

  /** Until when the live streams count as polling (at least `now`): the reserve holds till then. */
  reservedUntil(now: number, windowMs: number): number {
    let untilMs = now;
    for (const { intervalMs, seenAt } of this.streams.values())
      untilMs = Math.max(untilMs, seenAt + 3 * intervalMs + windowMs);
    return untilMs;
  }
}
