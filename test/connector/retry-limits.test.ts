import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import { driveClock } from '../support/drive-clock.ts';
import { type JsonServer, startJsonServer } from '../support/json-server.ts';

/**
 * design.md, Connector errors, and the retry bounds behind them (DEFAULT_RETRY_LIMITS: three
 * retries of internal errors and lost answers, Count halved down to 1 on the timeout error),
 * against servers on 127.0.0.1 that always fail: every call ends, with the error it met.
 */
const CONFIG = { clientToken: 'ct', accessToken: 'at', client: 'tests', rateLimit: false as const };
const PAGE_BODY = {
  Limitation: { Count: 1000 },
  Extent: { Customers: true },
  CustomerIds: ['6f8b1c84-61b5-4b52-9c29-6a4d3c0e1f11'],
};

let server: JsonServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function failingCall(status: number, paged: boolean) {
  server = await startJsonServer(() => ({ status, body: { Message: `always ${status}` } }));
  const clock = new ManualClock();
  const client = createConnectorClient(
    { ...CONFIG, baseUrl: server.url },
    { clock, random: () => 0.5 },
  );
  const call = paged
    ? client.call('customers/getAll', PAGE_BODY)
    : client.call('taxEnvironments/getAll', {});
  const error = await driveClock(
    clock,
    call.then(
      () => undefined,
      (failure: unknown) => failure,
    ),
  );
  await client.close();
  const counts = server.requests.map(
    (r) => (r.body as { Limitation?: { Count: number } }).Limitation?.Count,
  );
  return { error, counts };
}

describe('retry bounds of the connector client', () => {
  it('halves Count on each timeout error down to 1, then retries three times and gives up', async () => {
    const { error, counts } = await failingCall(408, true);
    expect(error).toMatchObject({ category: 'timeout', status: 408 });
    expect(counts).toEqual([1000, 500, 250, 125, 62, 31, 15, 7, 3, 1, 1, 1, 1]);
  });

  it('retries the timeout error of an operation without Count three times, then gives up', async () => {
    const { error, counts } = await failingCall(408, false);
    expect(error).toMatchObject({ category: 'timeout' });
    expect(counts).toHaveLength(4);
  });

  it('retries an internal error three times, then gives up', async () => {
    const { error, counts } = await failingCall(500, true);
    expect(error).toMatchObject({ category: 'internal' });
    expect(counts).toEqual([1000, 1000, 1000, 1000]);
  });

  it.each([
    [400, 'client'],
    [401, 'authorization'],
    [403, 'validation'],
    [409, 'conflict'],
  ])('never retries HTTP %i (%s)', async (status, category) => {
    const { error, counts } = await failingCall(status, true);
    expect(error).toMatchObject({ category, status });
    expect(counts).toHaveLength(1);
  });

  it('retries a request that got no answer three times, then gives up', async () => {
    let arrivals = 0;
    const dropping: Server = createServer((request) => {
      arrivals++;
      request.socket.destroy();
    });
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    const { port } = dropping.address() as AddressInfo;
    const clock = new ManualClock();
    const client = createConnectorClient(
      { ...CONFIG, baseUrl: `http://127.0.0.1:${port}` },
      { clock, random: () => 0.5 },
    );
    try {
      const error = await driveClock(
        clock,
        client.call('taxEnvironments/getAll', {}).then(
          () => undefined,
          (failure: unknown) => failure,
        ),
      );
      expect(error).toMatchObject({ category: 'network' });
      expect(arrivals).toBe(4);
    } finally {
      await client.close();
      dropping.closeAllConnections();
      await new Promise((resolve) => dropping.close(resolve));
    }
  });
});
