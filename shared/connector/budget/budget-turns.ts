import { BULK_RUNNING_MS, bulkSlot, liveSlot, type PacedSlot } from './budget-pacing.ts';
import type { Waiter } from './claim-queue.ts';

/** The next claim to serve, the capacity it is taken against, and its paced slot. */
export interface Turn extends PacedSlot {
  waiter: Waiter;
  capacity: number;
}

/** What {@link nextTurn} chooses from: a budget's queues and pace at `now`. */
export interface TurnState {
  now: number;
  firstLive: Waiter | undefined;
  firstBulk: Waiter | undefined;
  /** When the ledger last refused the first bulk claim, the time its slot may free. */
  bulkRefusedUntil: number;
  /** The server's own limit per window. */
  requests: number;
  /** Grants a window may hold now (lower for a while after a 429). */
  limit: number;
  /** The most live polls may take of a window while bulk work runs (the live reserve's cap). */
  liveShare: number;
  /** Requests the live streams make per window at their intervals. */
  liveDemand: number;
  lastLiveSlotAt: number;
  lastBulkSlotAt: number;
  /** The grants the window held when last seen, oldest first. */
  grants: readonly number[];
  windowMs: number;
  /** Grants in the window bulk work may bring the total to, given the live `reserve`. */
  bulkCapacity: (reserve: number) => number;
}

/**
 * Whose turn it is, and when: the first live claim at its slot (at once unless the live
 * streams ask more than they may take); the first bulk claim when its slot comes first. While
 * bulk work runs (a first sync, a backfill, a sweep) beside live streams asking more than
 * LIVE_RESERVE_CAP_SHARE of the budget, each side is paced over its share: served at
 * once, live polls filled the window and then each waited seconds for a slot to free (six
 * streams polled every second, 4.5 s); over the whole budget, they left bulk work nothing, and
 * first syncs and sweeps never ran. Without bulk work, live polls are paced over the whole
 * budget once they ask more than it. A bulk claim the ledger refused waits for its slot to
 * free apart from the live claims: slept on as a turn, it held every live claim already
 * queued until then (up to a window: the soak's 9 to 24 s without a detection, while a
 * sweep's request waited after a restart), since only a live claim arriving woke it. Pure but
 * for `bulkCapacity`; undefined when no claim waits.
 */
export function nextTurn(state: TurnState): Turn | undefined {
  const { now, firstLive: live, firstBulk, limit, liveShare, liveDemand: demand } = state;
  const bulkRefused = firstBulk !== undefined && now < state.bulkRefusedUntil;
  const bulk = bulkRefused ? undefined : firstBulk;
  // Between two claims of a bulk loop its queue is empty for a moment: it still runs.
  const bulkRuns = firstBulk !== undefined || now - state.lastBulkSlotAt < BULK_RUNNING_MS;
  const livePacedOver = bulkRuns ? liveShare : limit;
  const liveTurn: Turn | undefined = live && {
    waiter: live,
    // The server's own limit: after a 429 the lower pace spaces live claims, never stops them
    // (see PACE_AFTER_THROTTLE).
    capacity: state.requests,
    ...liveSlot(
      now,
      state.lastLiveSlotAt,
      state.windowMs,
      demand > livePacedOver ? livePacedOver : undefined,
    ),
  };
  if (bulkRefused) {
    // Its turn comes back when its slot may free (the pump sleeps until the earlier of the two).
    const retry: Turn = {
      waiter: firstBulk,
      capacity: limit,
      pacedAt: state.bulkRefusedUntil,
      interval: 0,
    };
    return liveTurn && liveTurn.pacedAt <= retry.pacedAt ? liveTurn : retry;
  }
  if (!bulk || (liveTurn && liveTurn.pacedAt <= now)) return liveTurn;
  const reserve = Math.min(demand, liveShare);
  const capacity = state.bulkCapacity(reserve);
  const paceOver = demand > liveShare ? limit - liveShare : capacity;
  const slot = bulkSlot({
    now,
    lastBulkSlotAt: state.lastBulkSlotAt,
    grants: state.grants,
    windowMs: state.windowMs,
    capacity: paceOver,
    livePolling: reserve > 0,
  });
  const bulkTurn: Turn = { waiter: bulk, capacity, ...slot };
  return liveTurn && liveTurn.pacedAt < bulkTurn.pacedAt ? liveTurn : bulkTurn;
}
