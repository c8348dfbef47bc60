import { withoutTokens } from '../connector/credential-fields.ts';
import type { RawResponse } from '../connector/http-transport.ts';

/** Headers of the connector's answer that the caller needs as they are. */
const PASSED_HEADERS = ['retry-after', 'request-id'] as const;

/** The {@link PASSED_HEADERS} the connector sent, each its first value. */
function passedHeaders(raw: RawResponse): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of PASSED_HEADERS) {
    const value = raw.headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) headers[name] = first;
  }
  return headers;
}

/**
 * Headers of a connector answer that is not JSON as the admin API sends it: never rendered by
 * a browser (an HTML error page of a proxy in front of the connector would otherwise run on
 * the admin API's origin, the console's): downloaded rather than shown, with no content
 * allowed to load or run, and never sniffed (every admin answer carries nosniff).
 */
const TEXT_ANSWER_HEADERS = {
  'content-disposition': 'attachment',
  'content-security-policy': "default-src 'none'; sandbox",
} as const;

/**
 * The media type a JSON type the connector named (`application/json`, `application/<x>+json`:
 * what no browser renders as a page) goes out as, with the charset the body is sent in (its
 * text was read as UTF-8); undefined for any other type.
 */
function jsonMediaType(contentType: string): string | undefined {
  const essence = contentType.split(';')[0]!.trim().toLowerCase();
  return /^application\/([a-z0-9.!#$&^_-]+\+)?json$/.test(essence)
    ? `${essence}; charset=utf-8`
    : undefined;
}

/**
 * The connector's answer as the caller gets it: the parsed JSON body, or a body that is not
 * JSON (a cut-off answer, a proxy's error page) as its text, instead of as a JSON string. An
 * error answer (any status but 200) has the connection's `tokens` left out first (the
 * connector, or a gateway in front of it, may repeat the request, envelope and all): callers
 * of the proxy never see connector tokens. Its media type is the connector's when that is JSON
 * (in UTF-8), else `text/plain; charset=utf-8` (never `text/html`, whatever the connector
 * said), with {@link TEXT_ANSWER_HEADERS}.
 */
export function answerOf(
  raw: RawResponse,
  tokens: readonly string[],
): { body: unknown; headers: Record<string, string> } {
  const headers = passedHeaders(raw);
  const text = raw.status === 200 ? raw.text : withoutTokens(raw.text, tokens);
  try {
    return { body: JSON.parse(text), headers };
  } catch {
    const type = raw.headers['content-type'];
    const named = Array.isArray(type) ? type[0] : type;
    const contentType =
      (named === undefined ? undefined : jsonMediaType(named)) ?? 'text/plain; charset=utf-8';
    return {
      body: text,
      headers: { ...headers, ...TEXT_ANSWER_HEADERS, 'content-type': contentType },
    };
  }
}
