/** Response body bytes kept in the attempt log: 4 KB. */
export const RESPONSE_BODY_KEEP_BYTES = 4096;
/** Response body bytes read at most; beyond this the connection is dropped rather than drained. */
const RESPONSE_BODY_DRAIN_MAX_BYTES = 256 * 1024;

/** A response that carries no body (204, 304, or `content-length: 0`): nothing to keep. */
export function hasEmptyBody(response: {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
}): boolean {
  return (
    response.statusCode === 204 ||
    response.statusCode === 304 ||
    response.headers['content-length'] === '0'
  );
}

/**
 * The first {@link RESPONSE_BODY_KEEP_BYTES} of a response body, read up to
 * {@link RESPONSE_BODY_DRAIN_MAX_BYTES}. A body that stalls past the timeout or breaks off ends
 * the read with what came: the status already arrived within the timeout, and it alone decides
 * the attempt (design.md: success is any 2xx within the timeout), so a receiver that took the
 * event is not sent it again.
 */
export async function readBodyPrefix(
  body: AsyncIterable<Buffer> & { destroy(): void },
): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let readBytes = 0;
  try {
    for await (const chunk of body) {
      readBytes += chunk.length;
      if (keptBytes < RESPONSE_BODY_KEEP_BYTES) {
        const part = chunk.subarray(0, RESPONSE_BODY_KEEP_BYTES - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
      if (readBytes > RESPONSE_BODY_DRAIN_MAX_BYTES) {
        body.destroy();
        break;
      }
    }
  } catch {
    // Stalled (the request's timeout aborted it) or broken off: keep what came.
    body.destroy();
  }
  return Buffer.concat(kept).toString('utf8');
}

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
