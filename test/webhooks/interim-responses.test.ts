import { once } from 'node:events';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { decideOutcome } from '../../shared/webhooks/delivery-outcome.ts';
import { UndiciWebhookSender } from '../../shared/webhooks/http-sender.ts';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../../shared/webhooks/retry-policy.ts';

/**
 * A receiver written by hand on a bare TCP server: for each whole request it reads (headers and
 * `content-length` body), it writes the next answer of `answers`, each a list of raw chunks
 * written 20 ms apart (so that an interim answer and the final one arrive as separate reads).
 */
async function rawReceiver(answers: string[][]) {
  const sockets = new Set<Socket>();
  let next = 0;
  const connections: number[] = [];
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    connections.push(0);
    const connection = connections.length - 1;
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let seen = '';
    socket.on('data', async (data) => {
      seen += data.toString('latin1');
      const headEnd = seen.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(seen)?.[1] ?? 0);
      if (seen.length < headEnd + 4 + length) return;
      seen = '';
      connections[connection]! += 1;
      for (const chunk of answers[next++] ?? []) {
        socket.write(chunk);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    /** Requests read per TCP connection, in the order the connections came. */
    connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setup(answers: string[][]) {
  const receiver = await rawReceiver(answers);
  const sender = new UndiciWebhookSender({
    policy: { allowPrivate: true },
    resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    clock: systemClock,
    timeoutMs: 2_000,
  });
  closers.push(receiver.close, () => sender.close());
  const send = () => sender.send({ url: receiver.url, headers: {}, body: '{"a":1}' });
  return { receiver, send };
}

const outcomeOf = (result: Awaited<ReturnType<UndiciWebhookSender['send']>>) =>
  result.kind === 'stopped'
    ? result.kind
    : decideOutcome(result, {
        attemptsMade: 1,
        schedule: DEFAULT_RETRY_SCHEDULE_MS,
        nowMs: 0,
        random: () => 0.5,
        maxPauseMs: 3_600_000,
      }).kind;

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';

// RFC 9110 §15.2: a client must be able to parse one or more 1xx answers before the final one,
// even if it did not expect one; only the final status decides (design.md: any 2xx succeeds).
describe('informational (1xx) answers before the final one', () => {
  it.each([
    ['103 Early Hints', ['HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n', OK]],
    ['100 Continue', ['HTTP/1.1 100 Continue\r\n\r\n', OK]],
    ['100 Continue in the same read as the final answer', [`HTTP/1.1 100 Continue\r\n\r\n${OK}`]],
    [
      'two 100 Continue then 102 Processing',
      [
        'HTTP/1.1 100 Continue\r\n\r\n',
        'HTTP/1.1 100 Continue\r\n\r\n',
        'HTTP/1.1 102 Processing\r\n\r\n',
        OK,
      ],
    ],
    ['100 Continue cut in pieces', ['HTTP/1.1 1', '00 Cont', 'inue\r\n', '\r\n', OK]],
  ])('counts a 2xx after %s a success', async (_name, chunks) => {
    const { send } = await setup([chunks]);
    const result = await send();
    expect(result).toMatchObject({ kind: 'response', status: 200, body: 'ok' });
    expect(outcomeOf(result)).toBe('delivered');
  });

  it('counts a 204 without a body after 100 Continue a success', async () => {
    const { send } = await setup([
      ['HTTP/1.1 100 Continue\r\n\r\n', 'HTTP/1.1 204 No Content\r\n\r\n'],
    ]);
    const result = await send();
    expect(result).toMatchObject({ kind: 'response', status: 204 });
    expect(outcomeOf(result)).toBe('delivered');
  });

  it.each([
    [
      '103 Early Hints then 500',
      ['HTTP/1.1 103 Early Hints\r\n\r\n', 'HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n'],
    ],
    [
      '100 Continue then 503',
      ['HTTP/1.1 100 Continue\r\n\r\n', 'HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n'],
    ],
    [
      '100 Continue then 302',
      [
        'HTTP/1.1 100 Continue\r\n\r\n',
        'HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/x\r\nContent-Length: 0\r\n\r\n',
      ],
    ],
  ])('does not count %s a success', async (_name, chunks) => {
    const { send } = await setup([chunks]);
    const result = await send();
    expect(result.kind).toBe('response');
    expect(outcomeOf(result)).toBe('retry');
  });

  it('is not a success when only an interim answer comes: the request times out', async () => {
    const { send } = await setup([['HTTP/1.1 100 Continue\r\n\r\n']]);
    const result = await send();
    expect(result).toMatchObject({ kind: 'error', error: 'timeout' });
    expect(outcomeOf(result)).toBe('retry');
  });

  it('keeps the connection for the next request, whose own 100 Continue is read the same way', async () => {
    const body = 'HTTP/1.1 100 Continue\r\n\r\n';
    const { receiver, send } = await setup([
      ['HTTP/1.1 100 Continue\r\n\r\n', OK],
      // A final answer whose body reads like an interim answer keeps its body as sent.
      [`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`, body],
      ['HTTP/1.1 100 Continue\r\n\r\n', 'HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n'],
    ]);
    // Apart, so that each request finds the connection back in the pool.
    const pause = () => new Promise((resolve) => setTimeout(resolve, 100));
    expect(await send()).toMatchObject({ kind: 'response', status: 200, body: 'ok' });
    await pause();
    expect(await send()).toMatchObject({ kind: 'response', status: 200, body });
    await pause();
    expect(await send()).toMatchObject({ kind: 'response', status: 201 });
    expect(receiver.connections).toEqual([3]);
  });
});
