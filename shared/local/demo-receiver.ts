import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import {
  LOOPBACK_MAX_CONNECTIONS,
  type LoopbackTimeouts,
  loopbackServerOptions,
} from '../admin/loopback-server-limits.ts';
import { allowedHostsFor, webPageRefusal } from '../admin/request-guard.ts';
import { describeThrown } from '../errors.ts';

/** What the demo receiver reports per request. */
export type ReceivedWebhook =
  | { verified: true; id: string; type: string; subject: string }
  | { verified: false; id: string; reason: string };

/** Reads the secret the receiver's subscription signs with now (undefined: it is gone). */
export type SecretSource = () => Promise<string | undefined>;

/** A running demo receiver. */
export interface DemoReceiver {
  url: string;
  /**
   * Verifies with the secret `read` gives from now on (set once its subscription exists). It is
   * read again when a signature does not verify, so a secret rotated since (`subscriptions
   * rotate-secret`) is taken up at its first webhook, before the old one stops signing.
   */
  useSecretSource(read: SecretSource): void;
  close(): Promise<void>;
}

/** Connections the receiver holds at once, as the admin API (it runs in the bridge's process). */
export const DEMO_MAX_CONNECTIONS = LOOPBACK_MAX_CONNECTIONS;

/**
 * The largest body the receiver reads: an event is at most 256 KiB (the EventBridge and SQS
 * limit every event keeps to), and a bigger body, from anything but the bridge, would be held in
 * the bridge's own memory.
 */
const DEMO_BODY_MAX_BYTES = 1024 * 1024;

/** The request's body as text, or undefined once it passes {@link DEMO_BODY_MAX_BYTES} (the rest is not read). */
async function readPayload(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > DEMO_BODY_MAX_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function headerOf(request: IncomingMessage, name: string): string {
  const value = request.headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

/**
 * A webhook receiver on 127.0.0.1 that verifies every request with the official
 * `standardwebhooks` package — the same code a subscriber would write — and reports it.
 * Answers 204 when the signature verifies with the subscription's current secret, 401 otherwise,
 * 413 to a body past 1 MiB; refuses (403, unreported) a request with an `Origin` or under a
 * `Host` other than its address: a web page's, never the bridge's. `timeouts` replace the
 * loopback servers' own (tests).
 */
export async function startDemoReceiver(
  onWebhook: (webhook: ReceivedWebhook) => void,
  port = 0,
  timeouts: LoopbackTimeouts = {},
): Promise<DemoReceiver> {
  let read: SecretSource | undefined;
  let current: { secret: string; webhook: Webhook } | undefined;
  /** Reads the secret again; the verifier is kept while the secret is the same. */
  const reread = async () => {
    if (!read) throw new Error('no secret yet');
    const secret = await read();
    if (secret === undefined) throw new Error('its subscription is gone');
    if (current?.secret !== secret) current = { secret, webhook: new Webhook(secret) };
    return current;
  };
  const verify = async (payload: string, headers: Record<string, string>) => {
    const cached = current;
    if (!cached) return (await reread()).webhook.verify(payload, headers);
    try {
      return cached.webhook.verify(payload, headers);
    } catch (error) {
      // Rotated since: the new secret signs every webhook (the old one only during its grace).
      const fresh = await reread();
      if (fresh.secret === cached.secret) throw error;
      return fresh.webhook.verify(payload, headers);
    }
  };
  let ownHosts: readonly string[] = [];
  const server = createServer(loopbackServerOptions(timeouts), async (request, response) => {
    // What the bridge's dispatcher never sends: a page's request (an Origin, or a Host of its
    // own through DNS rebinding). Refused before anything is read or printed.
    if (webPageRefusal(request.headers, ownHosts) !== undefined) {
      response.writeHead(403, { connection: 'close' }).end();
      return;
    }
    const headers = {
      'webhook-id': headerOf(request, 'webhook-id'),
      'webhook-timestamp': headerOf(request, 'webhook-timestamp'),
      'webhook-signature': headerOf(request, 'webhook-signature'),
    };
    const payload = await readPayload(request);
    if (payload === undefined) {
      onWebhook({
        verified: false,
        id: headers['webhook-id'],
        reason: `body larger than ${DEMO_BODY_MAX_BYTES} bytes, more than any webhook`,
      });
      response.writeHead(413, { connection: 'close' }).end();
      return;
    }
    try {
      const event = (await verify(payload, headers)) as { type?: string; subject?: string };
      onWebhook({
        verified: true,
        id: headers['webhook-id'],
        type: String(event.type),
        subject: String(event.subject ?? ''),
      });
      response.writeHead(204).end();
    } catch (error) {
      onWebhook({ verified: false, id: headers['webhook-id'], reason: describeThrown(error) });
      response.writeHead(401).end();
    }
  });
  server.maxConnections = DEMO_MAX_CONNECTIONS;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  ownHosts = allowedHostsFor('127.0.0.1', address.port);
  return {
    url: `http://127.0.0.1:${address.port}/hook`,
    useSecretSource(source) {
      read = source;
      current = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
