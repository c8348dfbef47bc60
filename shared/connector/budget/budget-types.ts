/** What the callers of a TokenBudget pass and get: claims, grants, limits and its view. */

/** Who asks: polls of caught-up streams (`live`) go first; first syncs, backfills, catch-up windows and sweeps (`bulk`) take what remains. */
export type BudgetPriority = 'live' | 'bulk';

/** One request's claim on the budget. */
export interface BudgetClaim {
  priority: BudgetPriority;
  /** The live stream asking and its polling interval: live streams size the live reserve. */
  streamId?: string;
  intervalMs?: number;
}

/** A grant of the budget: when it was taken, and for which lane (see {@link TokenBudget.giveBack}). */
export interface BudgetGrant {
  at: number;
  priority: BudgetPriority;
}

/** The server's budget and the margin held against it. */
export interface BudgetLimits {
  /** Requests per window (the Connector API: 200). */
  requests: number;
  /** The server's sliding window (30 s). */
  windowMs: number;
  /**
   * Added to the window on our side: a request counted when it is granted may arrive later
   * (transit, retries of a connection, clock skew between processes), so grants are spaced as
   * if the window were this much longer. The server then never sees more than `requests` in
   * its own window. A grant older than half of it when its request goes is moved to then first
   * ({@link TokenBudget.restamp}, GRANT_AGE_SHARE_OF_MARGIN).
   */
  marginMs: number;
}

/** What `streams list` shows of a token's budget. */
export interface BudgetView {
  requestsInWindow: number;
  limit: number;
  liveReserve: number;
  queued: { live: number; bulk: number };
  pausedUntil: number | null;
  slowedUntil: number | null;
}
