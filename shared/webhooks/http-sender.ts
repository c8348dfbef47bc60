import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import type { Clock } from '../clock.ts';
import { BridgeError } from '../errors.ts';
import { addressRefusal, type HostResolver, type UrlPolicy } from './url-policy.ts';

/** Default time allowed for one webhook request, connect to last body byte: 15 s. */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** Response body bytes kept in the attempt log: 4 KB. */
export const RESPONSE_BODY_KEEP_BYTES = 4096;
/** Response body bytes read at most; beyond this the connection is dropped rather than drained. */
const RESPONSE_BODY_DRAIN_MAX_BYTES = 256 * 1024;

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
      /** The first {@link RESPONSE_BODY_KEEP_BYTES} bytes of the body. */
      body: string;
      latencyMs: number;
    }
  | { kind: 'error'; error: 'timeout' | 'network' | 'blocked'; message: string; latencyMs: number };

/** The port the dispatcher posts through. */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<HttpAttemptResult>;
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
  /** Open connections per origin (keep-alive pool size). */
  connectionsPerOrigin?: number;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * Posts webhooks with undici: one keep-alive pool per origin, no redirects followed (no
 * redirect interceptor is installed, so a 3xx is just a status), a total timeout per
 * request, and the SSRF check at connect time: the socket connects to the address our
 * `lookup` resolved and checked, so DNS cannot change between check and connect.
 */
export class UndiciWebhookSender implements WebhookSender {
  private readonly agent: Agent;
  private readonly timeoutMs: number;

  constructor(private readonly options: UndiciWebhookSenderOptions) {
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    const lookup = (
      hostname: string,
      lookupOptions: { all?: boolean },
      callback: LookupCallback,
    ) => {
      this.resolveChecked(hostname).then(
        (addresses) => {
          if (lookupOptions.all) return callback(null, addresses);
          const first = addresses[0]!;
          callback(null, first.address, first.family);
        },
        (error: NodeJS.ErrnoException) => callback(error, []),
      );
    };
    this.agent = new Agent({
      connections: options.connectionsPerOrigin ?? 32,
      keepAliveTimeout: 30_000,
      connect: { lookup, timeout: this.timeoutMs },
    });
  }

  private async resolveChecked(hostname: string): Promise<LookupAddress[]> {
    const addresses = await this.options.resolve(hostname);
    if (addresses.length === 0) throw new BridgeError(`host ${hostname} does not resolve`);
    for (const { address } of addresses) {
      const refusal = addressRefusal(address, this.options.policy);
      if (refusal) throw new BlockedAddressError(`host ${hostname} resolves to ${refusal}`);
    }
    return addresses;
  }

  async send(webhook: WebhookRequest): Promise<HttpAttemptResult> {
    const started = this.options.clock.now();
    const latency = () => this.options.clock.now() - started;
    const url = new URL(webhook.url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An IP literal never reaches `lookup`, so it is checked here.
    const refusal = isIP(host) ? addressRefusal(host, this.options.policy) : undefined;
    if (refusal) return { kind: 'error', error: 'blocked', message: refusal, latencyMs: 0 };
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const response = await request(url, {
        method: 'POST',
        headers: webhook.headers,
        body: webhook.body,
        dispatcher: this.agent,
        signal,
      });
      const body = await readBodyPrefix(response.body);
      return {
        kind: 'response',
        status: response.statusCode,
        headers: flattenHeaders(response.headers),
        body,
        latencyMs: latency(),
      };
    } catch (error) {
      if (hasBlockedCause(error)) {
        return { kind: 'error', error: 'blocked', message: messageOf(error), latencyMs: latency() };
      }
      const timedOut = signal.aborted || nameOf(error) === 'ConnectTimeoutError';
      return {
        kind: 'error',
        error: timedOut ? 'timeout' : 'network',
        message: timedOut ? `no response within ${this.timeoutMs} ms` : messageOf(error),
        latencyMs: latency(),
      };
    }
  }

  /** Closes every pooled connection. */
  async close(): Promise<void> {
    await this.agent.close();
  }
}

async function readBodyPrefix(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let readBytes = 0;
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
  return Buffer.concat(kept).toString('utf8');
}

function flattenHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function hasBlockedCause(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof BlockedAddressError) return true;
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
