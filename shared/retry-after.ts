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

/**
 * Reads an HTTP `Retry-After` value (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
 * Returns the wait in milliseconds from `nowMs` (never negative, at most `maxMs`), or
 * `undefined` when the header is absent or unreadable (anything else, such as `-5` or `Dec 2030`,
 * which a lenient date parser would read as some year).
 * @example parseRetryAfter('2', now) === 2000; parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT', now)
 */
export function parseRetryAfter(
  value: string | readonly string[] | null | undefined,
  nowMs: number,
  maxMs = RETRY_AFTER_MAX_MS,
): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.min(maxMs, Math.ceil(Number(text) * 1000));
  const at = parseHttpDate(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(maxMs, Math.max(0, at - nowMs));
}
