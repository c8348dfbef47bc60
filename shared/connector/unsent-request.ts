/**
 * Error codes of a request that failed before a byte of it left this machine: the connection
 * was refused or never made, or the connector's name did not resolve. The server cannot have
 * counted such a request. A reset connection (ECONNRESET), a socket closed by the other side
 * or a timeout may come after the request went out: they are not here.
 */
const NEVER_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // undici's connect timeout: the TCP handshake did not complete.
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Causes followed at most: an error's `cause` chain may loop. */
const CAUSE_DEPTH_MAX = 5;

/**
 * Whether a transport failure says the request never reached the server (see
 * {@link NEVER_SENT_CODES}), looking at the error and its causes. When unsure, false: the
 * request may have been counted. Pure.
 * @example neverReachedServer(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })) === true
 */
export function neverReachedServer(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < CAUSE_DEPTH_MAX && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NEVER_SENT_CODES.has(code)) return true;
    current = current.cause;
  }
  return false;
}
