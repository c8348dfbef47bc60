import { Agent, request } from 'undici';

/** Keep-alive settings of the connector's connection pool. */
export const CONNECTOR_KEEP_ALIVE_MS = 30_000;
export const CONNECTOR_DEFAULT_TIMEOUT_MS = 60_000;

/** A raw HTTP answer, before any interpretation. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends a JSON POST and returns the raw answer; throws only when no answer arrived. */
export interface HttpTransport {
  postJson(
    url: string,
    body: string,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<RawResponse>;
  close(): Promise<void>;
}

/**
 * undici transport with one keep-alive pool per origin. `headersTimeout` and `bodyTimeout`
 * both use the call's timeout, so a stalled server cannot hold a poller forever. The pool has
 * no bound on its connections: a request is sent the moment the token's budget grants it (an
 * idle connection reused, else a new one), because the budget counts arrivals as the server
 * does. A bounded pool held granted requests while its connections were busy (slow pages), and
 * they then arrived with the next window's grants: more than 200 in the server's 30 s. The
 * requests in flight are bounded by the callers (the poll loop's concurrency, one job per
 * Lambda invocation) and by the budgets.
 */
export function createUndiciTransport(): HttpTransport {
  const agent = new Agent({ keepAliveTimeout: CONNECTOR_KEEP_ALIVE_MS });
  return {
    async postJson(url, body, { timeoutMs, signal }) {
      const response = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        ...(signal ? { signal } : {}),
      });
      const text = await response.body.text();
      return { status: response.statusCode, headers: response.headers, text };
    },
    close: () => agent.close(),
  };
}

/**
 * `transport` for one of the clients that share it (one keep-alive pool for every connection
 * to the connector): closing the client leaves it open, for its owner to close. Pure.
 */
export function borrowedTransport(transport: HttpTransport): HttpTransport {
  return {
    postJson: (url, body, options) => transport.postJson(url, body, options),
    close: async () => undefined,
  };
}
