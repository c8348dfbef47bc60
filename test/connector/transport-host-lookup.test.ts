import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createUndiciTransport } from '../../shared/connector/http-transport.ts';
import { createHostResolver } from '../../shared/dns/host-resolver.ts';
import { type DnsTestServer, startDnsTestServer } from '../support/dns-server.ts';

let server: Server | undefined;
let dns: DnsTestServer | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  await dns?.close();
  server = undefined;
  dns = undefined;
});

/** A connector answering `{}` on 127.0.0.1, and its port. */
async function startConnector(): Promise<number> {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function hostsOn(dnsServer: DnsTestServer) {
  return createHostResolver({
    readHosts: async () => new Map(),
    servers: [dnsServer.address],
    fallback: async (hostname) => {
      throw new Error(`the system resolver was asked for ${hostname}`);
    },
    timeoutMs: 600_000,
    tries: 1,
  });
}

/** A transport whose name server (`dns`) records questions and never answers. */
async function transportOnSilentDns() {
  dns = await startDnsTestServer({ 'connector.test': ['127.0.0.1'] });
  dns.silent = true;
  return createUndiciTransport(hostsOn(dns));
}

describe('the undici transport, looking up the connector host', () => {
  it('reaches the connector at the address its name server gives, one lookup for requests at once', async () => {
    const port = await startConnector();
    dns = await startDnsTestServer({ 'connector.test': ['127.0.0.1'] });
    const transport = createUndiciTransport(hostsOn(dns));
    try {
      const answers = await Promise.all(
        Array.from({ length: 4 }, () =>
          transport.postJson(`http://connector.test:${port}/api`, '{}', { timeoutMs: 5_000 }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      // Four connections opened at once, one A and one AAAA question.
      expect(dns.questions).toHaveLength(2);
    } finally {
      await transport.close();
    }
  });

  it('ends a request waiting for a silent name server as soon as its signal aborts (a stop)', async () => {
    const transport = await transportOnSilentDns();
    try {
      const stop = new AbortController();
      const request = transport
        .postJson('http://connector.test:9/api', '{}', { timeoutMs: 600_000, signal: stop.signal })
        .catch((error: unknown) => error);
      await vi.waitFor(() => expect(dns?.questions).toHaveLength(2));
      stop.abort(new Error('stopping'));
      expect(((await request) as Error).message).toBe('stopping');
    } finally {
      await transport.close();
    }
  });

  it('ends a request waiting for a silent name server at its timeout', async () => {
    const transport = await transportOnSilentDns();
    try {
      const startedAt = performance.now();
      const failure = await transport
        .postJson('http://connector.test:9/api', '{}', { timeoutMs: 300 })
        .catch((error: unknown) => error);
      expect((failure as Error).message).toBe('no complete answer within 300 ms');
      // Not when the connection attempt gave up (5 s later, without the race at the timeout).
      expect(performance.now() - startedAt).toBeLessThan(2_500);
    } finally {
      await transport.close();
    }
  });

  it('ends a request waiting for a silent name server as soon as the transport closes', async () => {
    const transport = await transportOnSilentDns();
    const request = transport
      .postJson('http://connector.test:9/api', '{}', { timeoutMs: 600_000 })
      .catch((error: unknown) => error);
    await vi.waitFor(() => expect(dns?.questions).toHaveLength(2));
    await transport.close();
    const failure = (await request) as Error;
    expect(failure).toBeInstanceOf(Error);
    expect(`${failure.message} ${String((failure.cause as Error | undefined)?.message)}`).toContain(
      'the process is stopping',
    );
  });
});
