import { createServer } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import type { HostResolver } from '../../shared/dns/system-resolver.ts';
import { decideOutcome } from '../../shared/webhooks/delivery-outcome.ts';
import { UndiciWebhookSender } from '../../shared/webhooks/http-sender.ts';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../../shared/webhooks/retry-policy.ts';
import { startReceiver } from '../webhooks/support/receiver.ts';

const loopback: HostResolver = async () => [{ address: '127.0.0.1', family: 4 }];

function sender(allowPrivate: boolean) {
  return new UndiciWebhookSender({
    policy: { allowPrivate },
    resolve: loopback,
    clock: systemClock,
    timeoutMs: 5_000,
  });
}

describe('what a webhook endpoint answers cannot steer the bridge', () => {
  it('does not follow a redirect, to a private address or anywhere else', async () => {
    const target = await startReceiver();
    const redirecting = await startReceiver(() => ({
      kind: 'respond',
      status: 307,
      headers: { location: target.url('/stolen') },
    }));
    const client = sender(true);
    try {
      const result = await client.send({ url: redirecting.url('/hook'), headers: {}, body: '{}' });
      expect(result).toMatchObject({ kind: 'response', status: 307 });
      expect(target.log).toEqual([]);
    } finally {
      await client.close();
      await redirecting.close();
      await target.close();
    }
  });

  it('reads at most a capped prefix of a huge response body and keeps 4 KB of it', async () => {
    let written = 0;
    const endless = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    const client = sender(true);
    try {
      const port = (endless.address() as AddressInfo).port;
      const result = await client.send({
        url: `http://127.0.0.1:${port}/hook`,
        headers: {},
        body: '{}',
      });
      expect(result.kind).toBe('response');
      if (result.kind === 'response') expect(result.body.length).toBeLessThanOrEqual(4096);
      // The sender stopped reading long before the 64 MB the endpoint offered.
      expect(written).toBeLessThan(16 * 1024 * 1024);
    } finally {
      await client.close();
      endless.closeAllConnections();
      await new Promise((resolve) => endless.close(resolve));
    }
  });

  it('takes the status that came within the timeout, whatever becomes of the body after it', async () => {
    // 200 then part of a body that never ends; 200 then the connection reset mid-body.
    const server = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('accepted, and then');
      if (request.url === '/reset') setTimeout(() => response.destroy(), 50);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new UndiciWebhookSender({
      policy: { allowPrivate: true },
      resolve: loopback,
      clock: systemClock,
      timeoutMs: 500,
    });
    try {
      const port = (server.address() as AddressInfo).port;
      for (const path of ['/stall', '/reset']) {
        const result = await client.send({
          url: `http://127.0.0.1:${port}${path}`,
          headers: {},
          body: '{}',
        });
        // design.md: success is any 2xx within the timeout. Counting it a timeout or a network
        // error would send the receiver, which took the event, the same event again.
        expect(result).toMatchObject({ kind: 'response', status: 200 });
        if (result.kind === 'response') expect(result.body).toContain('accepted, and then');
      }
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a receiver that dribbles its answer', () => {
  it('is cut off at the timeout, its socket closed, whether the status came or not', async () => {
    // A byte every 20 ms, forever: of the body after the 200 (/body), or of the headers (/head).
    const open = new Set<Socket>();
    const server = createNetServer((socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => {});
      socket.once('data', (request) => {
        const head = request.toString('latin1').startsWith('POST /head');
        socket.write(
          head ? 'HTTP/1.1 200 OK\r\n' : 'HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n',
        );
        const drip = setInterval(() => {
          if (socket.destroyed) clearInterval(drip);
          else socket.write(head ? 'x-drip: 1\r\n' : 'x');
        }, 20);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new UndiciWebhookSender({
      policy: { allowPrivate: true },
      resolve: loopback,
      clock: systemClock,
      timeoutMs: 400,
    });
    try {
      const port = (server.address() as AddressInfo).port;
      for (const [path, expected] of [
        // The 200 came within the timeout: it decides (see the test above).
        ['/body', { kind: 'response', status: 200 }],
        ['/head', { kind: 'error', error: 'timeout' }],
      ] as const) {
        const started = Date.now();
        const result = await client.send({
          url: `http://127.0.0.1:${port}${path}`,
          headers: {},
          body: '{}',
        });
        expect(result).toMatchObject(expected);
        expect(Date.now() - started).toBeGreaterThanOrEqual(390);
        expect(Date.now() - started).toBeLessThan(2_000);
        for (let waited = 0; open.size > 0 && waited < 2_000; waited += 20) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(open.size).toBe(0);
      }
    } finally {
      await client.close();
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('what a webhook endpoint asks of the bridge', () => {
  it('pauses for a Retry-After that the response repeats, as HTTP reads a singleton field', async () => {
    // A proxy in front of the receiver may add its own Retry-After beside the origin's. Joined
    // into one value ("8, 8") it read as no Retry-After, and the 429 paused nothing.
    const server = createServer((request, response) => {
      request.resume();
      response.setHeader('retry-after', ['8', '8']);
      response.writeHead(429).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = sender(true);
    try {
      const port = (server.address() as AddressInfo).port;
      const result = await client.send({
        url: `http://127.0.0.1:${port}/hook`,
        headers: {},
        body: '{}',
      });
      expect(result).toMatchObject({ kind: 'response', status: 429 });
      if (result.kind === 'stopped') throw new Error('the sender was not stopped');
      const nowMs = 1_000_000;
      const outcome = decideOutcome(result, {
        attemptsMade: 1,
        schedule: DEFAULT_RETRY_SCHEDULE_MS,
        nowMs,
        random: () => 0.5,
        maxPauseMs: 3_600_000,
      });
      expect(outcome).toEqual({ kind: 'retry', at: nowMs + 8000, pauseUntil: nowMs + 8000 });
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
