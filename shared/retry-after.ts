/** Upper bound on a wait we accept from a `Retry-After` header (a typo must not park us for days). */
export const RETRY_AFTER_MAX_MS = 60 * 60 * 1000;

/**
 * Reads an HTTP `Retry-After` value (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
 * Returns the wait in milliseconds from `nowMs` (never negative, at most `maxMs`), or
 * `undefined` when the header is absent or unreadable.
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
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(maxMs, Math.max(0, at - nowMs));
}
