import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loopbackServerOptions } from '../../shared/admin/loopback-server-limits.ts';
import {
  ADMIN_MAX_CONNECTIONS,
  type AdminServer,
  startAdminServer,
} from '../../shared/admin/node-server.ts';
import { nextAnswer, parseRawAnswer, rawExchange } from '../support/raw-socket.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness | undefined;
let server: AdminServer | undefined;
const held: Socket[] = [];
afterEach(async () => {
  for (const socket of held.splice(0)) socket.destroy();
  await server?.close();
  await harness?.close();
  server = undefined;
  harness = undefined;
});

/** The headers timeout the tests give the server instead of its 10 s, so as not to wait it out. */
const HEADERS_TIMEOUT_MS = 300;
/** Lines the server logged. */
let logged: string[] = [];

async function start(): Promise<AdminServer> {
  harness = createAdminHarness();
  logged = [];
  server = await startAdminServer({
    port: 0,
    deps: harness.deps,
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    log: (line) => logged.push(line),
  });
  return server;
}

/** An open connection to the server, held until the test ends. */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
    held.push(socket);
  });
}

/** GET /health on an open connection: the status of its answer. */
async function health(socket: Socket, port: number): Promise<number> {
  const answer = nextAnswer(socket);
  socket.write(`GET /health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`);
  return (await answer).status;
}

describe('admin HTTP server connection limits', () => {
  it('closes connections beyond its cap as they open while those it holds go on being answered', async () => {
    const { port } = await start();
    const sockets: Socket[] = [];
    for (let i = 0; i < ADMIN_MAX_CONNECTIONS; i++) sockets.push(await open(port));
    // The last one answered: node:http has accepted every one before it.
    expect(await health(sockets.at(-1)!, port)).toBe(200);
    const beyond = await rawExchange(
      port,
      [`GET /health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`],
      3000,
    );
    expect(beyond.text).toBe('');
    expect(beyond.ending).not.toBe('open');
    // Refused at the cap: said once, with the count (more within 30 s join the next line).
    expect(logged).toEqual([
      `admin API refused 1 connection: it holds at most ${ADMIN_MAX_CONNECTIONS} at once`,
    ]);
    expect(await health(sockets[0]!, port)).toBe(200);
    // One closed frees its place.
    sockets[1]!.destroy();
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      const again = await rawExchange(
        port,
        [`GET /health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\n\r\n`],
        1000,
      );
      status = parseRawAnswer(again.text).status;
    }
    expect(status).toBe(200);
  });

  it('answers 408 and closes a connection that sends nothing, or its headers a byte at a time, within its headers timeout', async () => {
    const { port } = await start();
    // node:http checks its connections' timeouts every second.
    const deadline = HEADERS_TIMEOUT_MS + 2500;
    const idle = rawExchange(port, [], deadline);
    const trickle = connect(port, '127.0.0.1');
    held.push(trickle);
    let trickled = '';
    trickle.on('data', (data: Buffer) => {
      trickled += data.toString('latin1');
    });
    trickle.on('error', () => {});
    const trickleEnded = new Promise<void>((resolve) => trickle.once('close', () => resolve()));
    const request = `GET /health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-slow: ${'a'.repeat(100)}`;
    let sent = 0;
    const dripping = setInterval(() => {
      if (!trickle.destroyed && sent < request.length) trickle.write(request[sent++]!);
    }, 200);
    try {
      const answer = await idle;
      expect(answer.ending).toBe('end');
      expect(answer.elapsedMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS);
      expect(answer.elapsedMs).toBeLessThan(deadline);
      const parsed = parseRawAnswer(answer.text);
      expect(parsed.status).toBe(408);
      expect(parsed.headers['x-content-type-options']).toBe('nosniff');
      await trickleEnded;
      expect(parseRawAnswer(trickled).status).toBe(408);
    } finally {
      clearInterval(dripping);
    }
  });

  it('waits 10 s for headers unless given another timeout, as the README says', () => {
    expect(loopbackServerOptions().headersTimeout).toBe(10_000);
    expect(loopbackServerOptions({ headersTimeoutMs: 300 }).headersTimeout).toBe(300);
  });
});
