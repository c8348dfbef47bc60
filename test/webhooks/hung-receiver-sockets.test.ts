import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { UndiciWebhookSender } from '../../shared/webhooks/http-sender.ts';
import { UNUSED_CONNECTION_CLOSE_MS } from '../../shared/webhooks/unused-connections.ts';
import { waitFor } from '../support/wait-for.ts';
import { loopbackResolver } from './support/harness.ts';

/** A receiver that accepts every connection, reads what comes and never answers. */
interface HungReceiver {
  url: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections open now (accepted, not yet closed by either side). */
  readonly open: number;
  /** Requests whose head arrived, over all connections. */
  readonly requests: number;
  /** The most requests any one connection carried. */
  readonly mostRequestsOnOneConnection: number;
  close(): Promise<void>;
}

async function startHungReceiver(): Promise<HungReceiver> {
  const open = new Set<Socket>();
  const perConnection: number[] = [];
  const server: Server = createServer((socket) => {
    const index = perConnection.push(0) - 1;
    open.add(socket);
    socket.on('data', (chunk) => {
      perConnection[index]! += chunk.toString('latin1').split('POST /').length - 1;
    });
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    get accepted() {
      return perConnection.length;
    },
    get open() {
      return open.size;
    },
    get requests() {
      return perConnection.reduce((sum, count) => sum + count, 0);
    },
    get mostRequestsOnOneConnection() {
      return Math.max(0, ...perConnection);
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const TIMEOUT_MS = 200;

/**
 * Sender to `receiver`'s kind of endpoint with the bridge's own Agent options (a keep-alive pool
 * per origin, 30 s), each request cut off at TIMEOUT_MS.
 */
function timingOutSender(): UndiciWebhookSender {
  const sender = new UndiciWebhookSender({
    policy: { allowPrivate: true },
    resolve: loopbackResolver,
    clock: systemClock,
    timeoutMs: TIMEOUT_MS,
  });
  cleanup.push(() => sender.close());
  return sender;
}

/*
 * A receiver that takes the connection and never answers: the delivery timeout aborts the
 * request, and undici 7 destroys its connection, but reconnects for the aborted request and drops
 * it (nodejs/undici#5845): where other connections of the pool were open, that fresh one stayed,
 * idle, for the keep-alive's 30 s, and the next attempt went over it. The sender closes a
 * connection unused for UNUSED_CONNECTION_CLOSE_MS (closeIfUnused); each cut-off still costs a
 * connection opened and closed unused, hence "at most two" connections a request below.
 */
describe('webhook sender and a receiver that never answers', () => {
  it('closes the connection of each request its timeout cut off, and sends the next on a new one', async () => {
    const receiver = await startHungReceiver();
    cleanup.push(() => receiver.close());
    const sender = timingOutSender();

    for (let attempt = 1; attempt <= 4; attempt++) {
      const result = await sender.send({ url: receiver.url, headers: {}, body: '{}' });
      expect(result).toMatchObject({ kind: 'error', error: 'timeout' });
      await waitFor(() => receiver.open === 0, 5_000, `connection of attempt ${attempt} closed`);
      expect(receiver.requests).toBe(attempt);
    }
    expect(receiver.mostRequestsOnOneConnection).toBe(1);
    expect(receiver.accepted).toBeLessThanOrEqual(2 * receiver.requests);
  });

  it('holds as many connections as requests run at once, and none once they timed out', async () => {
    const receiver = await startHungReceiver();
    cleanup.push(() => receiver.close());
    const sender = timingOutSender();
    const atOnce = 3;

    for (let round = 1; round <= 3; round++) {
      const sent = Array.from({ length: atOnce }, () =>
        sender.send({ url: receiver.url, headers: {}, body: '{}' }),
      );
      await waitFor(() => receiver.requests === round * atOnce, 5_000, `round ${round} sent`);
      expect(receiver.open).toBe(atOnce);
      for (const result of await Promise.all(sent))
        expect(result).toMatchObject({ kind: 'error', error: 'timeout' });
      await waitFor(() => receiver.open === 0, 5_000, `connections of round ${round} closed`);
    }
    expect(receiver.mostRequestsOnOneConnection).toBe(1);
    expect(receiver.accepted).toBeLessThanOrEqual(2 * receiver.requests);
  });

  it('keeps a connection that carries a request, however long its answer takes or it idles after', async () => {
    const answerAfterMs = UNUSED_CONNECTION_CLOSE_MS + 300;
    let connections = 0;
    const server = createHttpServer((_request, response) => {
      setTimeout(() => response.writeHead(204).end(), answerAfterMs);
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    cleanup.push(async () => server.closeAllConnections());
    const { port } = server.address() as AddressInfo;
    const sender = new UndiciWebhookSender({
      policy: { allowPrivate: true },
      resolve: loopbackResolver,
      clock: systemClock,
      timeoutMs: 10_000,
    });
    cleanup.push(() => sender.close());
    const url = `http://127.0.0.1:${port}/hook`;

    expect(await sender.send({ url, headers: {}, body: '{}' })).toMatchObject({ status: 204 });
    // Idle past the unused-connection limit (a real timer of the socket's, no clock to move):
    // the keep-alive connection serves the next request.
    await new Promise((resolve) => setTimeout(resolve, UNUSED_CONNECTION_CLOSE_MS + 200));
    expect(await sender.send({ url, headers: {}, body: '{}' })).toMatchObject({ status: 204 });
    expect(connections).toBe(1);
  });
});
