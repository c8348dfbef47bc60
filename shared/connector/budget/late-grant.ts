/**
 * Share of the budget's margin a grant may spend between its stamp in the ledger and its send.
 * The ledger counts a grant stamped at t over [t, t + window + margin), so the server counts no
 * more than the ledger while every request arrives within the margin after its stamp; this half
 * is for the wait before the send (the ledger's answer, a process starved of CPU), which the
 * sender sees, and the other half for what it does not (transit, clock skew between processes).
 */
export const GRANT_AGE_SHARE_OF_MARGIN = 0.5;

/**
 * Most re-stamps of one request's grant: each is a ledger write, and a host so starved that
 * every write ends later than {@link GRANT_AGE_SHARE_OF_MARGIN} of the margin after it began
 * would re-stamp forever. After them the request goes on its last stamp, a write old.
 */
export const GRANT_RESTAMPS_MAX = 3;

/**
 * Whether a grant stamped at `grantAt` is too old to send at `nowMs` under a margin of
 * `marginMs`: its request would reach the server later than the ledger counted it, beside the
 * next window's grants. Pure.
 * @example grantIsLate(1_000, 1_300, 500) // true: 300 ms old, 250 allowed
 */
export function grantIsLate(grantAt: number, nowMs: number, marginMs: number): boolean {
  return nowMs - grantAt > marginMs * GRANT_AGE_SHARE_OF_MARGIN;
}
