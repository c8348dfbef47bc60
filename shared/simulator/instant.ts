/**
 * Timestamps as the simulator compares them. A request's date-time may carry more than three
 * digits of a second (.NET sends seven; DateTimeSchema takes any), and `Date.parse` drops those
 * past the millisecond: `…00:00.0000001Z` read as `…00:00Z`, 100 ns early.
 */

/** The digits of the fraction of a second past the millisecond, in an ISO 8601 date-time. */
const SUB_MILLISECOND = /T\d{2}:\d{2}:\d{2}\.\d{3}(\d+)/;

/** True when `iso` names a time that is not a whole millisecond (a sub-ms digit is not 0). Pure. */
export function hasSubMillisecond(iso: string): boolean {
  const digits = SUB_MILLISECOND.exec(iso)?.[1];
  return digits !== undefined && /[1-9]/.test(digits);
}

/**
 * The first whole millisecond at or after `iso` (epoch ms): records carry whole milliseconds,
 * so `bound <= t` and `t < bound` hold for a record time `t` exactly when they hold against this.
 * NaN for text that is no date-time. Pure.
 * @example boundMs('2026-01-01T00:00:00.0000001Z') === Date.parse('2026-01-01T00:00:00.001Z')
 */
export function boundMs(iso: string): number {
  const ms = Date.parse(iso);
  return hasSubMillisecond(iso) ? ms + 1 : ms;
}
