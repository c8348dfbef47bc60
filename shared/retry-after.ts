/** Upper bound on a wait we accept from a `Retry-After` header (a typo must not park us for days). */
export const RETRY_AFTER_MAX_MS = 60 * 60 * 1000;

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';

/**
 * The three HTTP-date forms a recipient must accept (RFC 9110 §5.6.7): IMF-fixdate
 * (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37
 * GMT`) and asctime (`Sun Nov  6 08:49:37 1994`, in GMT though it says no zone).
 */
const IMF_FIXDATE = new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^${LONG_DAY}, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} (?: \\d|\\d{2}) ${TIME} \\d{4}$`);

/** The epoch ms of an HTTP-date, or NaN when `text` is none (Date.parse alone takes almost anything). */
function parseHttpDate(text: string): number {
  if (IMF_FIXDATE.test(text) || RFC850_DATE.test(text)) return Date.parse(text);
  if (ASCTIME_DATE.test(text)) return Date.parse(`${text} GMT`);
  return Number.NaN;
}

/** How {@link parseRetryAfter} reads a value. */
export interface RetryAfterOptions {
  /** The longest wait taken (default {@link RETRY_AFTER_MAX_MS}). */
  maxMs?: number;
  /**
   * The response's `Date` header: an HTTP-date in `Retry-After` is measured from it, on the
   * server's own clock, so a clock of ours ahead of the server's cannot end its pause early
   * (nor one behind it stretch the pause). Unreadable or absent: measured from `nowMs`.
   */
  serverDate?: string | readonly string[] | null | undefined;
}

/**
 * Reads an HTTP `Retry-After` value (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
 * Returns the wait in milliseconds from `nowMs` (never negative, at most `maxMs`), or
 * `undefined` when the header is absent or unreadable (anything else, such as `-5` or `Dec 2030`,
 * which a lenient date parser would read as some year). A date is measured against the
 * response's `Date` where given ({@link RetryAfterOptions.serverDate}).
 * @example parseRetryAfter('2', now) === 2000; parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT', now, { serverDate: 'Wed, 21 Oct 2026 07:27:58 GMT' }) === 2000
 */
export function parseRetryAfter(
  value: string | readonly string[] | null | undefined,
  nowMs: number,
  options: RetryAfterOptions = {},
): number | undefined {
  const maxMs = options.maxMs ?? RETRY_AFTER_MAX_MS;
  const text = firstValue(value);
  if (text === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.min(maxMs, Math.ceil(Number(text) * 1000));
  const at = parseHttpDate(text);
  if (Number.isNaN(at)) return undefined;
  const serverDate = firstValue(options.serverDate);
  const serverNow = serverDate === undefined ? Number.NaN : parseHttpDate(serverDate);
  const from = Number.isNaN(serverNow) ? nowMs : serverNow;
  return Math.min(maxMs, Math.max(0, at - from));
}

/** A header's first value, trimmed; `undefined` when absent or blank. */
function firstValue(value: string | readonly string[] | null | undefined): string | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  return raw.trim();
}
