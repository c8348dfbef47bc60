import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import { ConnectorError } from '../../shared/connector/errors.ts';
import { driveClock } from '../support/drive-clock.ts';

const ENTERPRISE = 'a0000000-0000-4000-8000-0000000000e1';
const SERVICE = 'a0000000-0000-4000-8000-0000000000e2';
const ONE_RETRY = { maxServerRetries: 1, maxRateLimitRetries: 0, baseDelayMs: 1, maxDelayMs: 1 };
const VOUCHER = {
  EnterpriseId: ENTERPRISE,
  VoucherParameters: [{ ServiceId: SERVICE, Name: 'v', Type: 'Public' as const }],
};

let servers: Server[] = [];
afterEach(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  servers = [];
});

/** A port on this machine with nothing listening on it (a connector that is down). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A connector on `port` that answers every request with `answer`, counting them. */
async function connectorOn(port: number, answer: (count: number) => 'ok' | 'hang') {
  let requests = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      requests++;
      if (answer(requests) === 'hang') return request.socket.destroy();
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ Vouchers: [] }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { requests: () => requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

function clientOf(port: number, clock: ManualClock) {
  return createConnectorClient(
    {
      baseUrl: `http://127.0.0.1:${port}`,
      clientToken: 'client',
      accessToken: `token-${Math.random()}`,
      client: 'test',
      rateLimit: false,
    },
    { clock, retryLimits: ONE_RETRY },
  );
}

describe('a write that never reached the connector', () => {
  it('says an add refused at connect was not applied', async () => {
    const clock = new ManualClock();
    const client = clientOf(await closedPort(), clock);
    const error = await driveClock(clock, client.call('vouchers/add', VOUCHER), 10).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as ConnectorError).unsent).toBe(true);
    // Before: "it may have been applied: check for its records", of an add never sent.
    expect((error as ConnectorError).message).toMatch(
      /never reached the connector, so it was not applied$/,
    );
  });

  it('sends an add again once the connector is back, as it never had it', async () => {
    const clock = new ManualClock();
    const port = await closedPort();
    const client = clientOf(port, clock);
    const call = client.call('vouchers/add', VOUCHER);
    // The first attempt is refused; the connector is back before the retry.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const connector = await connectorOn(port, () => 'ok');
    // Before, an add was never sent again after no answer, even one refused at connect.
    await expect(driveClock(clock, call, 10)).resolves.toEqual({ Vouchers: [] });
    expect(connector.requests()).toBe(1);
  });

  it('still says an update may have been applied when an earlier attempt reached the connector', async () => {
    const clock = new ManualClock();
    const port = await closedPort();
    const connector = await connectorOn(port, () => 'hang');
    const client = clientOf(port, clock);
    const call = client.call('restrictions/clear', {
      ServiceId: SERVICE,
      Data: [{ Type: 'Stay' }],
    });
    // The first attempt arrives and is left unanswered; the connector is down for the retry.
    while (connector.requests() === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await connector.close();
    servers = [];
    const error = await driveClock(clock, call, 10).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as ConnectorError).unsent).toBe(false);
  });
});
