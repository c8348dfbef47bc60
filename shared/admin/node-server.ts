import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ValidationError } from '../errors.ts';
import type { AdminDeps } from './admin-deps.ts';
import { answerClientError } from './client-error-answer.ts';
import { RefusedConnectionsLog } from './refused-connections-log.ts';
import {
  type AdminAccess,
  allowedHostsFor,
  guardAdminRequest,
  isLoopbackHost,
} from './request-guard.ts';
import { adminResponseHeaders, serializeAdminBody } from './response-body.ts';
import type { AdminResponse } from './route.ts';
import { handleAdminRequest, reportAdminError } from './router.ts';

/** Largest request body accepted: 1 MiB (API Gateway's own limit is 10 MB; ours are tiny). */
export const ADMIN_BODY_MAX_BYTES = 1024 * 1024;

/*
 * node:http's connection limits, chosen for a loopback API that a local process or a page could
 * flood: its defaults hold an idle connection 60 s (90 s with the 30 s check interval) and any
 * number of them, each a file descriptor of the process that also delivers the webhooks.
 */

/** The admin API's limits: those of every loopback server of `start` (loopback-server-limits.ts). */
export {
  LOOPBACK_HEADERS_TIMEOUT_MS as ADMIN_HEADERS_TIMEOUT_MS,
  LOOPBACK_MAX_CONNECTIONS as ADMIN_MAX_CONNECTIONS,
} from './loopback-server-limits.ts';

import {
  LOOPBACK_MAX_CONNECTIONS,
  type LoopbackTimeouts,
  loopbackServerOptions,
} from './loopback-server-limits.ts';

/** Options of {@link startAdminServer}. */
export interface AdminServerOptions {
  /** TCP port; 0 picks a free one. */
  port: number;
  /** Interface to listen on; loopback by default. Any other needs `token`. */
  host?: string;
  /** `BRIDGE_ADMIN_TOKEN`: the bearer token every request but the console's page and assets needs. */
  token?: string | undefined;
  /** More `Host` values to answer to (`host:port`) besides the listening address. */
  allowedHosts?: readonly string[];
  /** The routes' dependencies; `authentication` follows from `token`. */
  deps: Omit<AdminDeps, 'authentication'>;
  /** The headers timeout; 10 s by default (loopback-server-limits.ts). */
  headersTimeoutMs?: LoopbackTimeouts['headersTimeoutMs'];
  /**
   * Where the server's own notices go: connections refused at its cap, summarized (one line
   * every 30 s at most, see RefusedConnectionsLog). Absent: not logged.
   */
  log?: (line: string) => void;
}

/** A running admin server. */
export interface AdminServer {
  /** `http://<host>:<port>`; `http://127.0.0.1:<port>` when bound to every interface. */
  url: string;
  port: number;
  /**
   * Stops accepting, ends every connection but those of requests being served (read whole,
   * their route running: they get their answer, with `connection: close`), and resolves once
   * closed. A request read after that on a connection kept (a client that reused it) is not
   * applied: it is answered 503 where it still can be.
   */
  close(): Promise<void>;
}

/** The body as JSON: `undefined` when empty; a 400 or 413 response when unusable. */
export function parseJsonBody(
  text: string,
): { ok: true; value: unknown } | { ok: false; response: AdminResponse } {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return {
      ok: false,
      response: { status: 400, body: { error: 'the body is not valid JSON', field: 'body' } },
    };
  }
}

/**
 * Query parameters as the admin routes take them: a repeated one by its first value, as own
 * properties (`constructor` and `__proto__` are parameters like any other).
 * @example firstQueryValues(new URLSearchParams('limit=1&limit=2')) // { limit: '1' }
 */
export function firstQueryValues(params: URLSearchParams): Record<string, string> {
  const first = new Map<string, string>();
  for (const [key, value] of params) if (!first.has(key)) first.set(key, value);
  return Object.fromEntries(first);
}

/**
 * The request body as text, or `undefined` once it passes {@link ADMIN_BODY_MAX_BYTES}: reading
 * stops there (the request is paused, the rest left unread) and the caller answers 413 and
 * closes the connection, rather than reading up to the rest for nothing.
 */
function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', reject);
    };
    const onData = (chunk: Buffer | string) => {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      size += buffer.length;
      if (size <= ADMIN_BODY_MAX_BYTES) {
        chunks.push(buffer);
        return;
      }
      stop();
      request.pause();
      resolve(undefined);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', reject);
  });
}

/**
 * Sends `result`. With `close` (a request answered before its body was read whole), the answer
 * says `connection: close` and node:http closes the connection once it is sent, leaving the rest
 * of the body unread: a client sending a large body that is refused anyway (401, 403, 413) no
 * longer holds the connection while the rest arrives, up to the 30 s request limit.
 */
function send(response: ServerResponse, result: AdminResponse, close = false): void {
  const headers = { ...adminResponseHeaders(result), ...(close ? { connection: 'close' } : {}) };
  if (result.body === undefined) {
    response.writeHead(result.status, headers).end();
    return;
  }
  const { contentType, text } = serializeAdminBody(result)!;
  response
    .writeHead(result.status, {
      ...headers,
      'content-type': contentType,
      'content-length': String(Buffer.byteLength(text)),
    })
    .end(text);
}

/**
 * The request's URL, or undefined when its target is none (`http://[bad/`, a port past 65535:
 * node:http passes an absolute-form target on as it came). A path is appended to the base rather
 * than resolved against it: resolved, `//subscriptions` would read as a host named
 * `subscriptions` (and serve `/`), and `//host/subscriptions` as `/subscriptions`. Those paths
 * match no route now.
 */
function requestUrl(target: string | undefined): URL | undefined {
  const base = 'http://admin.invalid';
  const [url, against] = target?.startsWith('/') ? [`${base}${target}`] : [target ?? '/', base];
  return URL.canParse(url, against) ? new URL(url, against) : undefined;
}

/** A request read once the server is closing: not applied, so sending it again is safe. */
const STOPPING_ANSWER: AdminResponse = {
  status: 503,
  body: {
    error: 'the bridge is stopping: the request was not applied; send it again once it runs',
  },
};

async function serve(
  request: IncomingMessage,
  deps: AdminDeps,
  access: AdminAccess,
  onRead: () => boolean,
): Promise<AdminResponse> {
  const url = requestUrl(request.url);
  const method = request.method ?? 'GET';
  // RFC 9112, 3.2: node:http's own check (requireHostHeader) answered without our headers.
  if (request.httpVersion === '1.1' && request.headers.host === undefined) {
    request.resume();
    return { status: 400, body: { error: 'an HTTP/1.1 request must carry a Host header' } };
  }
  if (url === undefined) {
    request.resume();
    return { status: 400, body: { error: 'the request target is not a valid URL' } };
  }
  // An absolute-form target (`GET http://host/path`) names the host it is meant for.
  const authority = URL.canParse(request.url ?? '') ? url.host : undefined;
  const refused = guardAdminRequest(
    { method, path: url.pathname, headers: request.headers, authority },
    access,
  );
  // Its body is left unread: the answer closes the connection (see send).
  if (refused) return refused;
  const text = await readBody(request);
  if (!onRead()) return STOPPING_ANSWER;
  if (text === undefined) {
    return { status: 413, body: { error: `the body exceeds ${ADMIN_BODY_MAX_BYTES} bytes` } };
  }
  const body = parseJsonBody(text);
  if (!body.ok) return body.response;
  const query = firstQueryValues(url.searchParams);
  return handleAdminRequest({ method, path: url.pathname, query, body: body.value }, deps);
}

/**
 * Serves the admin API on node:http (the local runtime behind `change-bridge start`), behind
 * {@link guardAdminRequest}: own Host and Origin only, JSON bodies only, the token when set.
 * @throws ValidationError naming BRIDGE_ADMIN_TOKEN when `host` is not loopback and there is no token.
 * @example const admin = await startAdminServer({ port: 4000, deps }); console.log(admin.url); await admin.close();
 */
export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.token) {
    throw new ValidationError('admin server options', [
      {
        path: 'BRIDGE_ADMIN_TOKEN',
        message: `required when the admin API binds ${host}, a non-loopback interface`,
      },
    ]);
  }
  const access: AdminAccess = { allowedHosts: [], token: options.token || undefined };
  const deps: AdminDeps = {
    ...options.deps,
    authentication: access.token !== undefined ? 'bearer' : 'none',
  };
  // Connections, and those whose request is read whole and being served: closing ends the
  // others at once, a request half sent included (node:http would wait for the rest until its
  // headersTimeout, 60 s, or requestTimeout, 300 s, and `start` would not stop meanwhile).
  const sockets = new Set<Socket>();
  const serving = new Set<Socket>();
  // The request each connection is answering: one node:http refuses while it is answered is
  // either that request's own body (answered in its place) or a later request (answered after).
  const answering = new Map<Duplex, { request: IncomingMessage; response: ServerResponse }>();
  let closing = false;
  const server = createServer(
    {
      ...loopbackServerOptions({ headersTimeoutMs: options.headersTimeoutMs }),
      requireHostHeader: false,
    },
    (request, response) => {
      const { socket } = request;
      answering.set(socket, { request, response });
      response.once('close', () => {
        if (answering.get(socket)?.response === response) answering.delete(socket);
      });
      // Sending fails too (an answer JSON.stringify cannot write, a header value node:http
      // refuses): that is a 500 like any other, never an unhandled rejection that ends `start`.
      serve(request, deps, access, () => {
        // Read once the server is closing: a request sent on a connection it kept for the one
        // it was serving. Its answer could not be written (the connection is ended), so
        // applying it would leave a change its client saw fail.
        if (closing) return false;
        serving.add(socket);
        return true;
      })
        // While closing, every answer says `connection: close`, so no client sends another
        // request on this connection.
        .then((result) => send(response, result, !request.complete || closing))
        .catch((error: unknown) => {
          // Its body was cut off (the client hung up, or node:http refused the rest and
          // answered): no fault of ours to report, and no one to answer.
          if (!request.complete) {
            response.destroy();
            return;
          }
          reportAdminError(options.deps, error, {
            method: request.method ?? '',
            path: request.url ?? '',
          });
          if (!response.headersSent)
            send(response, { status: 500, body: { error: 'internal error' } });
          else response.destroy();
        })
        .finally(() => {
          serving.delete(socket);
          if (closing) socket.end();
        });
    },
  );
  server.maxConnections = LOOPBACK_MAX_CONNECTIONS;
  const log = options.log;
  const refusals = log
    ? new RefusedConnectionsLog('admin API', LOOPBACK_MAX_CONNECTIONS, log)
    : undefined;
  // node:http closes a connection past `maxConnections` as it is accepted, and says only this.
  if (refusals) server.on('drop', () => refusals.refused());
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('clientError', answerClientError(answering));
  // An `expect` other than 100-continue: node:http's own 417 carried only a status line.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    send(response, {
      status: 417,
      body: { error: 'the only expectation understood is expect: 100-continue' },
    });
  });
  await new Promise<void>((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) =>
      reject(listenError(error, host, options.port));
    server.once('error', refused);
    server.listen(options.port, host, () => {
      server.off('error', refused);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  access.allowedHosts = allowedHostsFor(host, port, options.allowedHosts);
  // Bound to every interface, it is reached on loopback: browsers refuse the wildcard address.
  const reachedAt = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const shownHost = reachedAt.includes(':') ? `[${reachedAt}]` : reachedAt;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        closing = true;
        refusals?.close();
        server.close((error) => (error ? reject(error) : resolve()));
        for (const socket of sockets) if (!serving.has(socket)) socket.destroy();
      }),
  };
}

/**
 * The error of a port already taken, saying what to do about it (another `start`, or another
 * program, listens there); other errors unchanged.
 */
function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  if (error.code !== 'EADDRINUSE') return error;
  return new Error(
    `${host.includes(':') ? `[${host}]` : host}:${port} is in use (EADDRINUSE: another ` +
      'change-bridge start, or another program, listens there); choose another port with ' +
      '--port or BRIDGE_PORT',
    { cause: error },
  );
}
