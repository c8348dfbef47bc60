import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One verified webhook as the receiver got it. */
export interface ReceivedEvent {
  webhookId: string;
  type: string;
  subject: string;
}

/** A subscriber endpoint on 127.0.0.1 that verifies every request with `standardwebhooks`. */
export interface TestReceiver {
  url: string;
  received: ReceivedEvent[];
  rejected: number;
  setSecret(secret: string): void;
  close(): Promise<void>;
}

/** Starts the receiver; requests that fail verification are answered 401 and counted. */
export async function startTestReceiver(): Promise<TestReceiver> {
  let verifier: Webhook | undefined;
  const state = { received: [] as ReceivedEvent[], rejected: 0 };
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const header = (name: string) => String(request.headers[name] ?? '');
    try {
      if (!verifier) throw new Error('no secret yet');
      const event = verifier.verify(Buffer.concat(chunks).toString('utf8'), {
        'webhook-id': header('webhook-id'),
        'webhook-timestamp': header('webhook-timestamp'),
        'webhook-signature': header('webhook-signature'),
      }) as { type: string; subject: string };
      state.received.push({
        webhookId: header('webhook-id'),
        type: event.type,
        subject: event.subject,
      });
      response.writeHead(204).end();
    } catch {
      state.rejected++;
      response.writeHead(401).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    get received() {
      return state.received;
    },
    get rejected() {
      return state.rejected;
    },
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
