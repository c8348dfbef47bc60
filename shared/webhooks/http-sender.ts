import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import type { Clock } from '../clock.ts';
import { HostLookupStoppedError } from '../dns/host-resolver.ts';
import { sharedSocketLookup } from '../dns/socket-lookup.ts';
import type { HostResolver, ResolvedAddress } from '../dns/system-resolver.ts';
import { BridgeError } from '../errors.ts';
import { flattenHeaders } from './http-response.ts';
import { skipContinueAnswers } from './interim-continue.ts';
import { PostExchange } from './post-exchange.ts';
import { closeIfUnused } from './unused-connections.ts';
import {
  addressRefusal,
  hostOf,
  portRefusal,
  schemeRefusal,
  type UrlPolicy,
} from './url-policy.ts';

/** Default time allowed for one webhook request, connect to last body byte: 15 s. */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** Parsed URLs kept by a sender; beyond this many the cache starts over. */
const TARGET_CACHE_MAX_ENTRIES = 1000;

/** A webhook URL, parsed, with the verdict on its port and on an IP literal host. */
interface Target {
  url: URL;
  /** The URL's origin and path (with its query) as undici's `request` parts them. */
  origin: string;
  path: string;
  refusal: string | undefined;
}

/** One POST to make. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What one POST came to, as a value: a response (any status) or a failure to get one. */
export type HttpAttemptResult =
  | {
      kind: 'response';
      status: number;
      headers: Record<string, string>;
      /** The first RESPONSE_BODY_KEEP_BYTES (in http-response.ts) bytes of the body. */
      body: string;
      latencyMs: number;
    }
  | { kind: 'error'; error: 'timeout' | 'network' | 'blocked'; message: string; latencyMs: number };

/**
 * A request the sender cut off, or never made, because it stops (see
 * UndiciWebhookSenderOptions.stopSignal): no answer came, and it says nothing of the endpoint,
 * so it is no attempt; the delivery waits for the next run (see sendAttempt).
 */
export interface StoppedRequest {
  kind: 'stopped';
  latencyMs: number;
}

/** The port the dispatcher posts through. */
export interface WebhookSender {
  /** One POST: what it came to, or `stopped` when the sender stops (see StoppedRequest). */
  send(request: WebhookRequest): Promise<HttpAttemptResult | StoppedRequest>;
}

/** A connection refused by the SSRF policy after DNS resolution. */
export class BlockedAddressError extends BridgeError {
  override name = 'BlockedAddressError';
}

/** Options of {@link UndiciWebhookSender}. */
export interface UndiciWebhookSenderOptions {
  policy: UrlPolicy;
  resolve: HostResolver;
  clock: Clock;
  timeoutMs?: number;
  /**
   * Open connections per origin at most (keep-alive pool size); by default as many as requests
   * run at once. The endpoint scheduler bounds those (a subscription's `maxConcurrency`, up to
   * 256): a smaller pool would queue requests inside the sender, their timeout running.
   */
  connectionsPerOrigin?: number;
  /**
   * Aborted when the process stops: the requests in flight are cut off, and none is made after,
   * each answered `{ kind: 'stopped' }` (a receiver may have taken one: it gets it again, with
   * the same `webhook-id`, from the next run).
   */
  stopSignal?: AbortSignal;
}

/**
 * Posts webhooks with undici: one keep-alive pool per origin, no redirects followed (no
 * redirect interceptor is installed, so a 3xx is just a status), interim 1xx answers read past
 * to the final one (a `100 Continue` too: see skipContinueAnswers), a total timeout per
 * request, and the SSRF check at connect time: the socket connects to the address our
 * `lookup` resolved and checked, so DNS cannot change between check and connect. Connections
 * opened at once to one host share its lookup (see sharedSocketLookup).
 */
export class UndiciWebhookSender implements WebhookSender {
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly targets = new Map<string, Target>();
  /** The requests in flight: cut off together when the sender stops. */
  private readonly inFlight = new Set<PostExchange>();

  constructor(private readonly options: UndiciWebhookSenderOptions) {
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    // One listener for every request (not one each: thousands may be in flight).
    options.stopSignal?.addEventListener(
      'abort',
      () => {
        const stopped = new Error('the sender stopped');
        for (const exchange of this.inFlight) exchange.abort(stopped);
      },
      { once: true },
    );
    // A subscriber whose DNS hangs would otherwise cost a lookup per connection its requests open.
    const lookup = sharedSocketLookup((hostname) => this.resolveAndCheck(hostname));
    const connect = buildConnector({ lookup, timeout: this.timeoutMs });
    this.agent = new Agent({
      // Unbounded by default: the endpoint scheduler decides how many requests run at once, and
      // a request queued here for a free connection would spend its timeout waiting (several
      // subscriptions may share one origin, each with up to 256 in flight).
      connections: options.connectionsPerOrigin ?? null,
      keepAliveTimeout: 30_000,
      // An unasked-for `100 Continue` before the final answer is dropped (see skipContinueAnswers);
      // a connection undici opens for a request already cut off is closed (see closeIfUnused).
      connect: (connectOptions, callback) =>
        connect(connectOptions, (...args) => {
          if (args[1]) {
            skipContinueAnswers(args[1]);
            closeIfUnused(args[1]);
          }
          callback(...args);
        }),
    });
  }

  /** The addresses of `hostname`, each allowed by the policy (none: see sharedSocketLookup). */
  private async resolveAndCheck(hostname: string): Promise<ResolvedAddress[]> {
    const addresses = await this.options.resolve(hostname);
    for (const { address } of addresses) {
      const refusal = addressRefusal(address, this.options.policy);
      if (refusal)
        throw new BlockedAddressError(`host ${hostname} resolves to a refused address: ${refusal}`);
    }
    return addresses;
  }

  /**
   * The parsed URL and the policy's verdict on its scheme (http stored while private addresses
   * were allowed: sent in clear once they are not), its port (a subscription stored before such
   * ports were refused) and, for an IP literal host, on that address (an IP literal never
   * reaches `lookup`, so it is checked here). All are pure in the URL string, so they are kept
   * per URL: a sender posts to few URLs, many times each.
   */
  private target(raw: string): Target {
    let target = this.targets.get(raw);
    if (!target) {
      const url = new URL(raw);
      const host = hostOf(url);
      const refusal =
        schemeRefusal(url, this.options.policy) ??
        portRefusal(url) ??
        (isIP(host) ? addressRefusal(host, this.options.policy) : undefined);
      const path = url.search ? `${url.pathname}${url.search}` : url.pathname;
      target = { url, origin: url.origin, path, refusal };
      if (this.targets.size >= TARGET_CACHE_MAX_ENTRIES) this.targets.clear();
      this.targets.set(raw, target);
    }
    return target;
  }

  async send(webhook: WebhookRequest): Promise<HttpAttemptResult | StoppedRequest> {
    const started = this.options.clock.now();
    const latency = () => this.options.clock.now() - started;
    const { origin, path, refusal } = this.target(webhook.url);
    if (refusal) return { kind: 'error', error: 'blocked', message: refusal, latencyMs: 0 };
    const stopSignal = this.options.stopSignal;
    if (stopSignal?.aborted) return { kind: 'stopped', latencyMs: 0 };
    const exchange = new PostExchange();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      exchange.abort(new Error(`no response within ${this.timeoutMs} ms`));
    }, this.timeoutMs);
    this.inFlight.add(exchange);
    try {
      // The agent's own dispatch, with the URL parted once per target (see PostExchange).
      this.agent.dispatch(
        { origin, path, method: 'POST', headers: webhook.headers, body: webhook.body },
        exchange,
      );
      const answer = await exchange.answer;
      if (answer.kind === 'answer') {
        return {
          kind: 'response',
          status: answer.status,
          headers: flattenHeaders(answer.headers),
          body: answer.body,
          latencyMs: latency(),
        };
      }
      const { error } = answer;
      // The connection waited for a lookup that the stop ended: nothing was sent.
      if (hasCause(error, HostLookupStoppedError)) return { kind: 'stopped', latencyMs: latency() };
      if (hasCause(error, BlockedAddressError)) {
        return { kind: 'error', error: 'blocked', message: messageOf(error), latencyMs: latency() };
      }
      if (exchange.aborted && !timedOut) return { kind: 'stopped', latencyMs: latency() };
      const late = timedOut || nameOf(error) === 'ConnectTimeoutError';
      return {
        kind: 'error',
        error: late ? 'timeout' : 'network',
        message: late ? `no response within ${this.timeoutMs} ms` : messageOf(error),
        latencyMs: latency(),
      };
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(exchange);
    }
  }

  /** Closes every pooled connection. */
  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** Whether `error`, or one of the first causes it was wrapped around, is a `type`. */
function hasCause(error: unknown, type: abstract new (...args: never[]) => Error): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof type) return true;
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : '';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
