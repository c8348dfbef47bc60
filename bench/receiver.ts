import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A webhook the receiver verified with the official `standardwebhooks` library. */
export interface VerifiedWebhook {
  /** `performance.now()` when the body was complete and verified. */
  at: number;
  id: string;
  type: string;
  subject: string;
  /** The body and signature headers as received (a baseline can post exactly these again). */
  body: string;
  headers: Record<string, string>;
}

/** A local webhook receiver on 127.0.0.1 (keep-alive, answers 204). */
export interface BenchReceiver {
  url: string;
  /** Secret used to verify; until set, requests are counted but not verified. */
  setSecret(secret: string): void;
  received: number;
  /** Body bytes received. */
  bytes: number;
  rejected: number;
  onVerified?: (webhook: VerifiedWebhook) => void;
  close(): Promise<void>;
}

function stringHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers))
    if (typeof value === 'string') headers[name] = value;
  return headers;
}

/** Reads `type` and `subject` of a CloudEvent body, or empty strings. */
function eventFields(body: string): { type: string; subject: string } {
  const parsed: unknown = JSON.parse(body);
  if (typeof parsed !== 'object' || parsed === null) return { type: '', subject: '' };
  const type = 'type' in parsed && typeof parsed.type === 'string' ? parsed.type : '';
  const subject = 'subject' in parsed && typeof parsed.subject === 'string' ? parsed.subject : '';
  return { type, subject };
}

/**
 * Starts a receiver; with `verify` false it only reads bodies (the bare POST baseline). With
 * `answerDelayMs` it answers each request that long after it arrived (a slow endpoint).
 */
export async function startBenchReceiver(verify = true, answerDelayMs = 0): Promise<BenchReceiver> {
  let webhook: Webhook | undefined;
  const receiver: BenchReceiver = {
    url: '',
    setSecret: (secret) => {
      webhook = new Webhook(secret);
    },
    received: 0,
    bytes: 0,
    rejected: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.received += 1;
      const body = Buffer.concat(chunks).toString('utf8');
      receiver.bytes += Buffer.byteLength(body);
      if (verify && webhook) {
        try {
          const headers = stringHeaders(request);
          webhook.verify(body, headers);
          const { type, subject } = eventFields(body);
          receiver.onVerified?.({
            at: performance.now(),
            id: String(request.headers['webhook-id']),
            type,
            subject,
            body,
            headers,
          });
        } catch {
          receiver.rejected += 1;
        }
      }
      if (answerDelayMs > 0) setTimeout(() => response.writeHead(204).end(), answerDelayMs);
      else response.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
