import type { AdminResponse } from './route.ts';

/** The bytes of a response body and the media type to send them with. */
export interface SerializedBody {
  contentType: string;
  text: string;
}

/**
 * How an admin response body goes on the wire, the same on node:http and API Gateway: a
 * response that names its own `content-type` (the console's page, scripts and styles)
 * carries its body as text, sent unchanged; every other body is JSON. Undefined for a
 * response without a body (204).
 * @example serializeAdminBody({ status: 200, body: { ok: true } }) // { contentType: 'application/json; charset=utf-8', text: '{"ok":true}' }
 */
export function serializeAdminBody(response: AdminResponse): SerializedBody | undefined {
  if (response.body === undefined) return undefined;
  const contentType = response.headers?.['content-type'];
  if (contentType !== undefined && typeof response.body === 'string') {
    return { contentType, text: response.body };
  }
  return { contentType: 'application/json; charset=utf-8', text: JSON.stringify(response.body) };
}

/**
 * The headers every admin answer carries, the same on node:http and API Gateway, besides its
 * body's `content-type`: never cached (answers hold tokens' metadata, deliveries and events),
 * and never sniffed as another media type than the one sent (a JSON answer that echoes a
 * caller's text must not be read as HTML).
 * @example adminResponseHeaders({ status: 204 }) // { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }
 */
export function adminResponseHeaders(response: AdminResponse): Record<string, string> {
  return { ...response.headers, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
}
