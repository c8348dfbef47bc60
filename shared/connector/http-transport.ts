import { Agent, buildConnector, request } from 'undici';
import { linkedSignal } from '../concurrency.ts';
import { createHostResolver, type StoppableHostResolver } from '../dns/host-resolver.ts';
import { sharedSocketLookup } from '../dns/socket-lookup.ts';
import { untilAborted } from '../undici-until-aborted.ts';

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
 * undici transport with one keep-alive pool per origin. The call's timeout bounds the whole
 * exchange (headers and body), so neither a stalled nor a trickling server holds a caller past
 * it. The pool has no bound on its connections: a request is sent the moment the token's
 * budget grants it (an idle connection reused, else a new one), because the budget counts
 * arrivals as the server does. A bounded pool held granted requests while its connections were busy (slow pages), and
 * they then arrived with the next window's grants: more than 200 in the server's 30 s. The
 * requests in flight are bounded by the callers (the poll loop's concurrency, one job per
 * Lambda invocation) and by the budgets. The connector's host name is looked up off libuv's
 * threadpool and cancellably (createHostResolver), one lookup shared by the connections opened
 * at once: with its name server silent, each new connection's getaddrinfo held a pool thread
 * for its whole timeout, the others queued behind, and at exit Node ran every queued lookup
 * first (`start` stayed up 96 s after "stopped"). Closing the transport stops `hosts`, ending
 * the lookups in flight.
 */
export function createUndiciTransport(
  hosts: StoppableHostResolver = createHostResolver(),
): HttpTransport {
  const agent = new Agent({
    keepAliveTimeout: CONNECTOR_KEEP_ALIVE_MS,
    connect: buildConnector({ lookup: sharedSocketLookup(hosts.resolve) }),
  });
  return {
    async postJson(url, body, { timeoutMs, signal }) {
      // The whole exchange ends by the timeout: headersTimeout and bodyTimeout bound each wait
      // alone, so an answer that keeps trickling would run past it (past a proxied call's
      // deadline, its caller gone).
      // An integer of ms, as AbortSignal.timeout takes (a deadline less now may be fractional).
      const overall = AbortSignal.timeout(Math.max(0, Math.ceil(timeoutMs)));
      // Linked, not AbortSignal.any: `signal` lives as long as its poll loop or connection.
      const linked = linkedSignal(signal, overall);
      try {
        // Settled at the abort (a stop, the timeout) even while its connection is still being
        // opened (see untilAborted): a poll stops at once, whatever the connector's DNS does.
        const aborted = linked.signal ?? overall;
        const response = await untilAborted(
          request(url, {
            method: 'POST',
            dispatcher: agent,
            headers: { 'content-type': 'application/json', accept: 'application/json' },
            body,
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs,
            signal: aborted,
          }),
          aborted,
        );
        const text = await response.body.text();
        return { status: response.statusCode, headers: response.headers, text };
      } catch (error) {
        if (overall.aborted && !signal?.aborted)
          throw new Error(`no complete answer within ${timeoutMs} ms`, { cause: error });
        throw error;
      } finally {
        linked.release();
      }
    },
    close: async () => {
      hosts.stop();
      await agent.close();
    },
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
