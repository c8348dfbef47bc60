import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { receiverPath } from '../../support/receiver-path.ts';

/** One request as the receiver saw it. */
export interface ReceivedRequest {
  /** Receiver's own wall-clock time of arrival (ms). */
  at: number;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Verified with the official `standardwebhooks` library under each secret of the path. */
  verifiedWith: number;
}

/** What the test's handler decides: a response, a hang (no answer) or a dropped connection. */
export type ReceiverAction =
  | {
      kind: 'respond';
      status: number;
      headers?: Record<string, string>;
      body?: string;
      /** Answer this long after the request arrived (a slow endpoint). */
      delayMs?: number;
      /** Answer once this settles (and `delayMs` has passed): the test decides when. */
      answerWhen?: Promise<unknown>;
    }
  | { kind: 'hang' }
  | { kind: 'drop' };

/** An in-process webhook receiver on 127.0.0.1. */
export interface Receiver {
  /** The URL of `path` at this receiver (carrying its own prefix; see {@link startReceiver}). */
  url(path: string): string;
  /** Secrets a path's requests are verified with (all must verify). */
  secrets: Map<string, string[]>;
  log: ReceivedRequest[];
  /**
   * Requests of the log whose sender closed the connection before any answer (a hang its
   * sender's timeout ended, an abort), each added when its connection closed.
   */
  abandoned: ReceivedRequest[];
  /** Requests of the log answered so far, each added once its answer was written. */
  answered: ReceivedRequest[];
  close(): Promise<void>;
}

function headerMap(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

/** Counts how many of `secrets` verify the request with `standardwebhooks` (throws on none). */
export function verifyWithAll(
  secrets: readonly string[],
  body: string,
  headers: Record<string, string>,
): number {
  let verified = 0;
  for (const secret of secrets) {
    try {
      new Webhook(secret).verify(body, headers);
      verified += 1;
    } catch {
      // counted as not verified
    }
  }
  return verified;
}

/**
 * Starts a receiver; `decide` picks the action for each request after it is logged.
 *
 * Its URLs carry a prefix of its own ({@link receiverPath}); a request without it is answered
 * 404, neither logged nor decided. The log's paths are the test's, the prefix removed.
 */
export async function startReceiver(
  decide: (request: ReceivedRequest) => ReceiverAction = () => ({ kind: 'respond', status: 200 }),
): Promise<Receiver> {
  const log: ReceivedRequest[] = [];
  const abandoned: ReceivedRequest[] = [];
  const answered: ReceivedRequest[] = [];
  const secrets = new Map<string, string[]>();
  const prefix = receiverPath('receiver');
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (!request.url?.startsWith(`${prefix}/`)) {
      response.writeHead(404);
      response.end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = headerMap(request);
      const path = (request.url ?? prefix).slice(prefix.length);
      const entry: ReceivedRequest = {
        at: Date.now(),
        path,
        headers,
        body,
        verifiedWith: verifyWithAll(secrets.get(path) ?? [], body, headers),
      };
      log.push(entry);
      response.on('close', () => {
        if (!response.writableEnded) abandoned.push(entry);
      });
      response.on('finish', () => answered.push(entry));
      const action = decide(entry);
      if (action.kind === 'hang') return;
      if (action.kind === 'drop') {
        request.socket.destroy();
        return;
      }
      const answer = () => {
        response.writeHead(action.status, action.headers);
        response.end(action.body ?? '');
      };
      const answerInTime = () => {
        if (action.delayMs) setTimeout(answer, action.delayMs);
        else answer();
      };
      if (action.answerWhen) void action.answerWhen.then(answerInTime, answerInTime);
      else answerInTime();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: (path) => `http://127.0.0.1:${port}${prefix}${path}`,
    secrets,
    log,
    abandoned,
    answered,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
