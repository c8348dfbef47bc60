import type { BudgetClaim } from '../../shared/connector/budget/budget-types.ts';
import type { GrantLedger } from '../../shared/connector/budget/grant-ledger.ts';
import type { TokenBudget } from '../../shared/connector/budget/token-budget.ts';

/** One step of a token budget's turns, in the order it happened. */
export type BudgetTurn =
  | { kind: 'live-claim' }
  | { kind: 'take-started'; live: boolean; capacity: number }
  | { kind: 'take-answered'; live: boolean; granted: boolean; paused: boolean };

/** What {@link summarizeBudgetTurns} counts in a log of turns. */
export interface BudgetTurnSummary {
  liveClaims: number;
  liveGrants: number;
  syncGrants: number;
  /** Live takes the ledger refused for room (the window held no slot for them), not for a 429's pause. */
  liveRefused: number;
  /** Sync takes begun while a live claim waited (claimed, not yet granted by the ledger). */
  syncTakesBesideWaitingLive: number;
  /** The fewest grants in the window a sync take was allowed to bring it to (Infinity: none). */
  leastSyncCapacity: number;
}

/**
 * A ledger that records every take of `ledger` in `log` (its start with the capacity asked, and
 * its answer: granted or not, and whether for a 429's pause), then answers as `ledger` does. The budget awaits each take before its next
 * turn, so the log holds its turns in order.
 */
export function recordingLedger(ledger: GrantLedger, log: BudgetTurn[]): GrantLedger {
  return {
    async take(key, now, windowMs, capacity, claim) {
      const live = claim?.live ?? true;
      log.push({ kind: 'take-started', live, capacity });
      const result = await ledger.take(key, now, windowMs, capacity, claim);
      const paused = result.pausedUntil !== undefined;
      log.push({ kind: 'take-answered', live, granted: result.granted, paused });
      return result;
    },
    restamp: (key, given, now, windowMs, capacity, claim) =>
      ledger.restamp(key, given, now, windowMs, capacity, claim),
    pause: (key, untilMs) => ledger.pause(key, untilMs),
    release: (key, given) => ledger.release(key, given),
    recent: (key, nowMs, windowMs) => ledger.recent(key, nowMs, windowMs),
  };
}

/** Records in `log` each live claim made on `budget` when it is made, then claims as before. */
export function recordLiveClaims(budget: TokenBudget, log: BudgetTurn[]): void {
  const acquire = budget.acquire.bind(budget);
  budget.acquire = (claim: BudgetClaim, signal?: AbortSignal) => {
    if (claim.priority === 'live') log.push({ kind: 'live-claim' });
    return acquire(claim, signal);
  };
}

/**
 * Counts a log of turns: claims, grants, refusals, the sync takes begun while a live claim
 * waited (one counts as waiting from its claim until the ledger grants a live take), and the
 * least capacity a sync take was given. Pure.
 */
export function summarizeBudgetTurns(log: readonly BudgetTurn[]): BudgetTurnSummary {
  const summary: BudgetTurnSummary = {
    liveClaims: 0,
    liveGrants: 0,
    syncGrants: 0,
    liveRefused: 0,
    syncTakesBesideWaitingLive: 0,
    leastSyncCapacity: Number.POSITIVE_INFINITY,
  };
  for (const turn of log) {
    if (turn.kind === 'live-claim') summary.liveClaims++;
    else if (turn.kind === 'take-started') {
      if (turn.live) continue;
      summary.leastSyncCapacity = Math.min(summary.leastSyncCapacity, turn.capacity);
      if (summary.liveClaims > summary.liveGrants) summary.syncTakesBesideWaitingLive++;
    } else if (turn.live) {
      if (turn.granted) summary.liveGrants++;
      else if (!turn.paused) summary.liveRefused++;
    } else if (turn.granted) summary.syncGrants++;
  }
  return summary;
}
