import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** What the demo receiver reports per request. */
export type ReceivedWebhook =
  | { verified: true; id: string; type: string; subject: string }
  | { verified: false; id: string; reason: string };

/** A running demo receiver. */
export interface DemoReceiver {
  url: string;
  /** Verifies with this secret from now on (set once its subscription exists; rotation adds one). */
  setSecret(secret: string): void;
  close(): Promise<void>;
}

function headerOf(request: IncomingMessage, name: string): string {
  const value = request.headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

/**
 * A webhook receiver on 127.0.0.1 that verifies every request with the official
 * `standardwebhooks` package — the same code a subscriber would write — and reports it.
 * Answers 204 when the signature verifies, 401 otherwise.
 */
export async function startDemoReceiver(
  onWebhook: (webhook: ReceivedWebhook) => void,
  port = 0,
): Promise<DemoReceiver> {
  let verifier: Webhook | undefined;
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
      if (!verifier) throw new Error('no secret yet');
      const event = verifier.verify(payload, headers) as { type?: string; subject?: string };
      onWebhook({
        verified: true,
        id: headers['webhook-id'],
        type: String(event.type),
        subject: String(event.subject ?? ''),
      });
      response.writeHead(204).end();
    } catch (error) {
      onWebhook({ verified: false, id: headers['webhook-id'], reason: (error as Error).message });
      response.writeHead(401).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/hook`,
    setSecret(secret) {
      verifier = new Webhook(secret);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
