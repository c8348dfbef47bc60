import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { receiverPath } from '../support/receiver-path.ts';

/** One verified webhook as the receiver got it. */
export interface ReceivedEvent {
  webhookId: string;
  type: string;
  subject: string;
  /** The event's detection time (its `time`, ISO 8601). */
  time: string;
}

/** A subscriber endpoint on 127.0.0.1 that verifies every request with `standardwebhooks`. */
export interface TestReceiver {
  url: string;
  received: ReceivedEvent[];
  /** Requests answered 401 (their signature did not verify, or no secret was set yet): `rejections.length`. */
  rejected: number;
  /** Why each of {@link TestReceiver.rejected} was refused, in arrival order (for failures' messages). */
  readonly rejections: ReadonlyArray<{ webhookId: string; reason: string }>;
  setSecret(secret: string): void;
  /** Keeps verified requests waiting, unanswered, until {@link TestReceiver.release} (a stuck endpoint). */
  hold(): void;
  /** Answers the waiting requests whose sender is still connected (each then counts as received) and stops holding. */
  release(): void;
  /** Requests waiting for an answer now. */
  readonly waiting: number;
  /** Held requests whose sender gave up (closed the connection: its timeout) before an answer. */
  readonly givenUp: number;
  /** Verified requests a slow endpoint has not answered yet (see {@link TestReceiver.slow}). */
  readonly answering: number;
  /** Answers each verified request `ms` after it arrived (0: at once), a slow endpoint. */
  slow(ms: number): void;
  /**
   * Answers the next `times` verified requests that `matches` with `status` (default 500: a
   * failing endpoint), with a `Retry-After` of `retryAfterSeconds` if given.
   */
  failNext(
    times: number,
    matches: (event: ReceivedEvent) => boolean,
    status?: number,
    retryAfterSeconds?: number,
  ): void;
  /** Every verified request in arrival order, with when it arrived and the status it was answered with. */
  readonly attempts: ReadonlyArray<ReceivedEvent & { status: number; at: number }>;
  close(): Promise<void>;
}

/** Where {@link startTestReceiver} listens, when not on a port and path of its own. */
export interface TestReceiverAddress {
  /** The port on 127.0.0.1 (default: one the system gives out). */
  port?: number;
  /** The path it answers (default: one no other receiver uses, see receiverPath). */
  path?: string;
}

/**
 * Starts the receiver; requests that fail verification are answered 401 and counted. Given an
 * `address`, it listens there: an endpoint that refused connections until now, say.
 */
export async function startTestReceiver(address: TestReceiverAddress = {}): Promise<TestReceiver> {
  let verifier: Webhook | undefined;
  const state = {
    received: [] as ReceivedEvent[],
    rejections: [] as { webhookId: string; reason: string }[],
  };
  const attempts: Array<ReceivedEvent & { status: number; at: number }> = [];
  let failing = {
    times: 0,
    matches: (_event: ReceivedEvent) => false,
    status: 500,
    headers: {} as Record<string, string>,
  };
  let holding = false;
  let delayMs = 0;
  let answering = 0;
  let held: Array<() => void> = [];
  let givenUp = 0;
  const path = address.path ?? receiverPath('hook');
  const server = createServer(async (request, response) => {
    if (request.url !== path) {
      response.writeHead(404).end();
      return;
    }
    const at = Date.now();
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const header = (name: string) => String(request.headers[name] ?? '');
    try {
      if (!verifier) throw new Error('no secret yet');
      const event = verifier.verify(Buffer.concat(chunks).toString('utf8'), {
        'webhook-id': header('webhook-id'),
        'webhook-timestamp': header('webhook-timestamp'),
        'webhook-signature': header('webhook-signature'),
      }) as { type: string; subject: string; time: string };
      const got = {
        webhookId: header('webhook-id'),
        type: event.type,
        subject: event.subject,
        time: event.time,
      };
      if (failing.times > 0 && failing.matches(got)) {
        failing.times--;
        attempts.push({ ...got, status: failing.status, at });
        response.writeHead(failing.status, failing.headers).end();
        return;
      }
      const answer = () => {
        // A sender that went away (killed while waiting) never saw the answer: not received.
        if (response.destroyed) return;
        state.received.push(got);
        attempts.push({ ...got, status: 204, at });
        response.writeHead(204).end();
      };
      if (holding) {
        held.push(answer);
        response.on('close', () => {
          if (!response.writableEnded) givenUp++;
        });
      } else if (delayMs > 0) {
        answering++;
        setTimeout(() => {
          answering--;
          answer();
        }, delayMs);
      } else answer();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      state.rejections.push({ webhookId: header('webhook-id'), reason });
      response.writeHead(401).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(address.port ?? 0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    get received() {
      return state.received;
    },
    get rejected() {
      return state.rejections.length;
    },
    get rejections() {
      return state.rejections;
    },
    setSecret(secret) {
      verifier = new Webhook(secret);
    },
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      const waiting = held;
      held = [];
      for (const answer of waiting) answer();
    },
    get waiting() {
      return held.length;
    },
    get givenUp() {
      return givenUp;
    },
    get answering() {
      return answering;
    },
    slow(ms) {
      delayMs = ms;
    },
    failNext(times, matches, status = 500, retryAfterSeconds) {
      const headers: Record<string, string> =
        retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
      failing = { times, matches, status, headers };
    },
    attempts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
