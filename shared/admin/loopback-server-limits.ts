/**
 * Limits of the HTTP servers `start` runs on loopback (the admin API, the demo receiver): they
 * share the bridge's process, whose descriptors and memory a local flood of connections would
 * take.
 */

/**
 * Connections held at once; more are closed as they are accepted (the ones held go on). The
 * console's browser opens at most 6 per host, the CLI one per command, a proxy a pool of some
 * tens, the dispatcher far fewer to one endpoint.
 */
export const LOOPBACK_MAX_CONNECTIONS = 128;

/** A connection that has not sent its request's headers by then (one idle since it opened too) is answered 408 and closed. */
export const LOOPBACK_HEADERS_TIMEOUT_MS = 10_000;

/** A request not received whole by then (a body of at most 1 MiB trickled) is answered 408; a route's own time does not count. */
export const LOOPBACK_REQUEST_TIMEOUT_MS = 30_000;

/** An idle keep-alive connection is closed this long after its last answer (node:http's default, set here on purpose). */
export const LOOPBACK_KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** What a loopback server may be given instead of the limits above (tests: a short headers timeout). */
export interface LoopbackTimeouts {
  /** Instead of {@link LOOPBACK_HEADERS_TIMEOUT_MS}; at most {@link LOOPBACK_REQUEST_TIMEOUT_MS}. */
  headersTimeoutMs?: number;
}

/**
 * node:http's server options for the limits above, checked every second (they hold within it).
 * @example loopbackServerOptions({ headersTimeoutMs: 300 }).headersTimeout // 300
 */
export function loopbackServerOptions(timeouts: LoopbackTimeouts = {}) {
  return {
    headersTimeout: timeouts.headersTimeoutMs ?? LOOPBACK_HEADERS_TIMEOUT_MS,
    requestTimeout: LOOPBACK_REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: 1_000,
    keepAliveTimeout: LOOPBACK_KEEP_ALIVE_TIMEOUT_MS,
  } as const;
}
