import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createUndiciTransport } from '../../shared/connector/http-transport.ts';
import { dependantSignals } from '../support/dependant-signals.ts';

let server: Server | undefined;
const timers: NodeJS.Timeout[] = [];
afterEach(async () => {
  for (const timer of timers) clearInterval(timer);
  timers.length = 0;
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

describe('the undici transport', () => {
  it('ends a request whose answer is still coming when its timeout is over', async () => {
    // Headers at once, then a byte of the body every 100 ms for 3 s: never idle for 400 ms.
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write(' ');
        let sent = 0;
        const timer = setInterval(() => {
          sent++;
          if (sent < 30) response.write(' ');
          else {
            clearInterval(timer);
            response.end('{}');
          }
        }, 100);
        timers.push(timer);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const transport = createUndiciTransport();
    try {
      const startedAt = Date.now();
      const outcome = await transport.postJson(url, '{}', { timeoutMs: 400 }).then(
        () => 'answered',
        (error: unknown) => error,
      );
      // Before: answered after 3 s, the timeout only bounding each wait for headers or a chunk
      // (a proxied write applied after its caller stopped listening).
      expect(outcome).toBeInstanceOf(Error);
      expect((outcome as Error).message).toBe('no complete answer within 400 ms');
      expect(Date.now() - startedAt).toBeLessThan(1_500);
    } finally {
      await transport.close();
    }
  });
});

describe('the undici transport with a signal that lives long (a poll loop’s, a connection’s)', () => {
  it('leaves nothing on it once a request ends: Node 20 kept a signal per request for ever', async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.end('{}'));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const transport = createUndiciTransport();
    const loop = new AbortController();
    try {
      for (let i = 0; i < 20; i++)
        expect(
          (await transport.postJson(url, '{}', { timeoutMs: 5_000, signal: loop.signal })).status,
        ).toBe(200);
      expect(dependantSignals(loop.signal)).toBe(0);
    } finally {
      await transport.close();
    }
  });
});
