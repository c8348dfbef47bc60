import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { AdminResponse } from './route.ts';

/*
 * What keeps web pages away from the local admin API: a page the operator visits can send
 * requests to 127.0.0.1 (no-cors fetch, form posts, DNS rebinding) but cannot choose the
 * Host it reaches us under, cannot hide its Origin, cannot send a JSON content type without
 * a preflight we never answer, and cannot know the bearer token.
 */

/** Who may call the admin server: the Host values it answers to and an optional bearer token. */
export interface AdminAccess {
  /** Accepted `Host` header values (`host:port`, compared without case). */
  allowedHosts: readonly string[];
  /** `BRIDGE_ADMIN_TOKEN`: when set, every request but the console page and assets needs it. */
  token?: string | undefined;
}

/** The request headers the guard reads (node:http's `IncomingHttpHeaders` fits). */
export type GuardHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * Why a request to a loopback server that only programs call (the simulator, the demo receiver)
 * is refused before any route, or undefined when it may pass: one that carries an `Origin` (only
 * browsers send one: a page's no-cors POST, which needs no preflight, would act on the server),
 * or, when `ownHosts` is given, one whose `Host` is not among them (a DNS-rebinding page, which
 * could read the answers too). The bridge, the CLI and curl send neither. Pure.
 * @example webPageRefusal({ origin: 'https://evil.example' }, undefined, 'simulator') // 'Requests from web pages …'
 */
export function webPageRefusal(
  headers: GuardHeaders,
  ownHosts: readonly string[] | undefined,
  serverName = 'server',
): string | undefined {
  if (headers.origin !== undefined)
    return 'Requests from web pages (with an Origin header) are refused.';
  const host = String(headers.host ?? '').toLowerCase();
  if (ownHosts !== undefined && !ownHosts.includes(host))
    return `Host ${host || '(none)'} is not this ${serverName}'s address.`;
  return undefined;
}

/** True for 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/**
 * The `Host` values an API listening on `host:port` answers to: that address, and
 * `localhost:port` too when it is loopback (and, listening on `localhost`, the loopback
 * addresses it stands for: the CLI's default `--api` names 127.0.0.1); each without the port
 * too on port 80; plus `extra` (a configured list).
 * @example allowedHostsFor('127.0.0.1', 4000) // ['127.0.0.1:4000', 'localhost:4000']
 */
export function allowedHostsFor(
  host: string,
  port: number,
  extra: readonly string[] = [],
): string[] {
  const shown = isIP(host) === 6 ? `[${host}]` : host;
  const own = [`${shown}:${port}`];
  if (isLoopbackHost(host) && host !== 'localhost') own.push(`localhost:${port}`);
  if (host.toLowerCase() === 'localhost') own.push(`127.0.0.1:${port}`, `[::1]:${port}`);
  // Bound to every interface: loopback reaches it too (over IPv6 as well when bound to `::`).
  if (host === '0.0.0.0' || host === '::') own.push(`127.0.0.1:${port}`, `localhost:${port}`);
  if (host === '::') own.push(`[::1]:${port}`);
  // On HTTP's default port a browser's Host leaves the port out (RFC 9110, 7.2): `localhost`.
  if (port === 80) own.push(...own.map((entry) => entry.replace(/:80$/, '')));
  return [...new Set([...own, ...extra].map((entry) => entry.toLowerCase()))];
}

function header(headers: GuardHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Same bytes, compared in constant time (digests first, so lengths leak nothing either). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** True when a request has a body: a non-zero content-length or any transfer-encoding. */
export function hasBody(headers: GuardHeaders): boolean {
  const length = header(headers, 'content-length');
  if (length !== undefined && length.trim() !== '' && Number(length) !== 0) return true;
  return header(headers, 'transfer-encoding') !== undefined;
}

/** The console's page and assets: reachable without the token (they hold no data). */
function isConsoleAsset(method: string, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && (path === '/' || path.startsWith('/console/'));
}

const forbidden = (error: string): AdminResponse => ({ status: 403, body: { error } });

/**
 * Why a request may not reach the admin routes, as the response to send, or undefined when
 * it may: 403 for a `Host` (or the `authority` of an absolute-form target, `GET http://host/…`)
 * not in {@link AdminAccess.allowedHosts} or an `Origin` other than
 * the API's own; 401 without the right bearer token (when one is configured; the console's
 * page and assets are exempt); 415 for a body that is not `application/json`, and for a write
 * without a body that names another content type (an empty HTML form's POST).
 * @example guardAdminRequest({ method: 'GET', path: '/streams', headers: { host: '127.0.0.1:4000' } }, access)
 */
export function guardAdminRequest(
  request: { method: string; path: string; headers: GuardHeaders; authority?: string | undefined },
  access: AdminAccess,
): AdminResponse | undefined {
  const host = header(request.headers, 'host')?.toLowerCase();
  // An absolute-form target names the host itself (RFC 9112, 3.2.2: it, not Host, says which
  // server is meant): both must be ours. No Host at all is refused too ('' is never listed).
  const named = [host ?? '', ...(request.authority ? [request.authority.toLowerCase()] : [])];
  const unknown = named.find((name) => !access.allowedHosts.includes(name));
  if (unknown !== undefined) {
    // The names it answers to are not listed: a rebinding page reads this answer.
    return forbidden(
      `the admin API does not answer to host "${unknown}" (to answer to it, add it to BRIDGE_ALLOWED_HOSTS)`,
    );
  }
  const origin = header(request.headers, 'origin')?.toLowerCase();
  if (origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}`) {
    return forbidden(`cross-origin requests are refused (origin "${origin}")`);
  }
  if (access.token !== undefined && !isConsoleAsset(request.method.toUpperCase(), request.path)) {
    const match = /^bearer\s+(.+)$/i.exec(header(request.headers, 'authorization')?.trim() ?? '');
    if (!match || !sameSecret(match[1]!, access.token)) {
      return {
        status: 401,
        body: { error: 'the admin API needs its token (BRIDGE_ADMIN_TOKEN) as a bearer token' },
        headers: { 'www-authenticate': 'Bearer' },
      };
    }
  }
  return bodyTypeRefusal(
    request.headers,
    hasBody(request.headers) || isFormLikeWrite(request.method, request.headers),
  );
}

/**
 * True for a write (any method but GET and HEAD) that names a content type, with a body or
 * not: an HTML form's POST with no field has none, yet names a form's media type, and browsers
 * that send no `Origin` on a cross-site POST (Firefox before 70) let another site's page send it.
 * The API's clients name one only with a JSON body.
 */
function isFormLikeWrite(method: string, headers: GuardHeaders): boolean {
  const writes = !['GET', 'HEAD'].includes(method.toUpperCase());
  return writes && header(headers, 'content-type') !== undefined;
}

/** 415 for a body not sent as `application/json`: a page cannot send that cross-site without a preflight. */
function bodyTypeRefusal(headers: GuardHeaders, withBody: boolean): AdminResponse | undefined {
  if (!withBody) return undefined;
  const mediaType = header(headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (mediaType === 'application/json') return undefined;
  return {
    status: 415,
    body: {
      error:
        'a request body must be sent as content-type: application/json (and a request without one names no other content type)',
    },
  };
}

/** True for the Origin of a page on loopback (`http://127.0.0.1:8080`, `http://localhost:8080`, `http://[::1]:8080`). */
function isLoopbackOrigin(origin: string): boolean {
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname);
}

/**
 * Why a request API Gateway has authorized may still not reach the admin routes, or undefined
 * when it may. IAM authorizes the signer, not the sender: a local SigV4 proxy (how README has
 * the console opened in AWS) signs whatever reaches it, a web page's requests too. Such a page
 * cannot send a JSON body without a preflight (415 for any other), and its browser marks what
 * it sends with `Sec-Fetch-Site` (403 for a write unless `same-origin` or `none`) and, on a
 * write, with its `Origin` (403 for a write unless a loopback page's, where README has the
 * proxy bound: browsers without `Sec-Fetch-Site`, Safari before 16.4, send a bodiless
 * cross-site POST with only that); the CLI and other SigV4 clients send neither. The local
 * guard's Host check does not apply: the proxy sends the API's Host.
 * @example guardSignedRequest({ method: 'POST', headers: { 'content-type': 'text/plain' }, hasBody: true }) // 415
 */
export function guardSignedRequest(request: {
  method: string;
  headers: GuardHeaders;
  hasBody: boolean;
}): AdminResponse | undefined {
  const site = header(request.headers, 'sec-fetch-site')?.trim().toLowerCase();
  // GET and HEAD change nothing, and a page cannot read another site's answer: a link from
  // another site to the console still opens it.
  const reads = ['GET', 'HEAD'].includes(request.method.toUpperCase());
  if (!reads && site !== undefined && site !== 'same-origin' && site !== 'none') {
    return forbidden(`requests another site sends are refused (sec-fetch-site "${site}")`);
  }
  const origin = header(request.headers, 'origin')?.trim().toLowerCase();
  if (!reads && origin !== undefined && !isLoopbackOrigin(origin)) {
    return forbidden(
      `writes from a page not on loopback are refused (origin "${origin}"): open the console through a proxy bound to loopback`,
    );
  }
  return bodyTypeRefusal(request.headers, request.hasBody);
}
