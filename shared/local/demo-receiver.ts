import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
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

function headerOf(request: IncomingMessage, name: string): string {
  const value = request.headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

/**
 * A webhook receiver on 127.0.0.1 that verifies every request with the official
 * `standardwebhooks` package — the same code a subscriber would write — and reports it.
 * Answers 204 when the signature verifies with the subscription's current secret, 401 otherwise.
 */
export async function startDemoReceiver(
  onWebhook: (webhook: ReceivedWebhook) => void,
  port = 0,
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
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const payload = Buffer.concat(chunks).toString('utf8');
    const headers = {
      'webhook-id': headerOf(request, 'webhook-id'),
      'webhook-timestamp': headerOf(request, 'webhook-timestamp'),
      'webhook-signature': headerOf(request, 'webhook-signature'),
    };
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
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
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
