import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';

/** A budget of four requests per 3 s, so four refused requests would fill it. */
const LIMIT = { requests: 4, windowMs: 3_000 };
const NO_RETRIES = { maxServerRetries: 0, maxRateLimitRetries: 0, baseDelayMs: 1, maxDelayMs: 1 };

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A port on this machine with nothing listening on it (a connector that is down). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** The connector back on `port`: answers every call with an empty tax environment list. */
async function connectorUpOn(port: number): Promise<Server> {
  const up = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ TaxEnvironments: [] }));
    });
  });
  await new Promise<void>((resolve) => up.listen(port, '127.0.0.1', resolve));
  return up;
}

function clientOf(baseUrl: string, clock: ManualClock) {
  return createConnectorClient(
    {
      baseUrl,
      clientToken: 'client',
      accessToken: `token-${Math.random()}`,
      client: 'test',
      rateLimit: LIMIT,
    },
    { clock, retryLimits: NO_RETRIES, budgetMarginMs: 0 },
  );
}

/** Whether `call` settles within a moment of real time, the manual clock standing still. */
async function settlesAtOnce(call: Promise<unknown>): Promise<boolean> {
  const waited = new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), 300));
  return (await Promise.race([call.then(() => 'settled'), waited])) === 'settled';
}

describe('requests that never reached the connector', () => {
  it('are not counted in the token’s budget: the first poll after it is back goes at once', async () => {
    const clock = new ManualClock();
    const port = await closedPort();
    const client = clientOf(`http://127.0.0.1:${port}`, clock);
    for (let i = 0; i < LIMIT.requests; i++) {
      const refused = await client.call('taxEnvironments/getAll', {}).catch((e: unknown) => e);
      expect(refused).toMatchObject({ category: 'network' });
      expect(String((refused as Error).message)).toContain('ECONNREFUSED');
    }
    server = await connectorUpOn(port);
    // The server counted none of them: a full budget is left. Before, the four refused
    // requests filled it and the call waited for the window to roll over.
    const calls = Array.from({ length: LIMIT.requests }, () =>
      client.call('taxEnvironments/getAll', {}),
    );
    expect(await settlesAtOnce(Promise.all(calls))).toBe(true);
    // A fifth within the window waits: the answered ones count.
    const fifth = client.call('taxEnvironments/getAll', {});
    expect(await settlesAtOnce(fifth)).toBe(false);
    await clock.advance(LIMIT.windowMs);
    await fifth;
    await client.close();
  });

  it('count when answered, an authorization error too (the server counts arrivals)', async () => {
    const clock = new ManualClock();
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ Message: 'Invalid AccessToken.', RequestId: 'r' }));
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const client = clientOf(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, clock);
    for (let i = 0; i < LIMIT.requests; i++) {
      const refused = await client.call('taxEnvironments/getAll', {}).catch((e: unknown) => e);
      expect(refused).toMatchObject({ isAuthorization: true });
    }
    const next = client.call('taxEnvironments/getAll', {}).catch((e: unknown) => e);
    expect(await settlesAtOnce(next)).toBe(false);
    await clock.advance(LIMIT.windowMs);
    await next;
    await client.close();
  });

  it('still count when they may have reached it: a request sent and left without an answer', async () => {
    const clock = new ManualClock();
    // The server takes the request and never answers: the transport's timeout ends it.
    server = createServer((request) => request.resume());
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = createConnectorClient(
      {
        baseUrl: `http://127.0.0.1:${port}`,
        clientToken: 'client',
        accessToken: `token-${Math.random()}`,
        client: 'test',
        rateLimit: LIMIT,
        timeoutMs: 100,
      },
      { clock, retryLimits: NO_RETRIES, budgetMarginMs: 0 },
    );
    for (let i = 0; i < LIMIT.requests; i++) {
      const unanswered = await client.call('taxEnvironments/getAll', {}).catch((e: unknown) => e);
      expect(unanswered).toMatchObject({ category: 'network' });
    }
    const next = client.call('taxEnvironments/getAll', {}).catch((e: unknown) => e);
    expect(await settlesAtOnce(next)).toBe(false);
    await clock.advance(LIMIT.windowMs);
    await next;
    await client.close();
  });
});
