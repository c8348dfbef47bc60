/** Response body bytes kept in the attempt log: 4 KB. */
export const RESPONSE_BODY_KEEP_BYTES = 4096;
/** Response body bytes read at most; beyond this the connection is dropped rather than drained. */
export const RESPONSE_BODY_DRAIN_MAX_BYTES = 256 * 1024;

/**
 * Response fields that hold one value (RFC 9110 §5.3: not lists), whose repeats are discarded, the
 * first kept, as node:http does. A `Retry-After` a proxy added beside the origin's would otherwise
 * read `8, 8`: no Retry-After at all, and the 429 would pause nothing.
 */
const SINGLETON_FIELDS = new Set([
  'age',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'last-modified',
  'location',
  'retry-after',
  'server',
]);

/** Response headers as one string each: list fields joined with `, `, singleton ones their first value. */
export function flattenHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (!Array.isArray(value)) flat[name] = value;
    else if (value.length > 0)
      flat[name] = SINGLETON_FIELDS.has(name) ? value[0]! : value.join(', ');
  }
  return flat;
}
