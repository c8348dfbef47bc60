import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import { createWriteThrough } from '../../shared/writes/write-through.ts';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';
import { driveClock } from '../support/drive-clock.ts';
import { collectingPublisher } from './support/simulator-writes.ts';

const ENTERPRISE = 'a0000000-0000-4000-8000-0000000000e1';
const SERVICE = 'a0000000-0000-4000-8000-0000000000e2';

let connector: Server | undefined;
let admin: AdminServer | undefined;
let harness: AdminHarness | undefined;
afterEach(async () => {
  await admin?.close();
  await harness?.deps.writeThrough?.close();
  await harness?.close();
  connector?.closeAllConnections();
  await new Promise((resolve) => connector?.close(resolve) ?? resolve(undefined));
  connector = undefined;
  admin = undefined;
  harness = undefined;
});

/** The admin API on 127.0.0.1 in front of a connector that ends every connection unanswered. */
async function bridgeOfSilentConnector(): Promise<string> {
  connector = createServer((request) => {
    request.resume();
    request.on('end', () => request.socket.destroy());
  });
  await new Promise<void>((resolve) => connector!.listen(0, '127.0.0.1', resolve));
  harness = createAdminHarness();
  harness.deps.writeThrough = createWriteThrough({
    connectionId: 'main',
    connector: {
      baseUrl: `http://127.0.0.1:${(connector.address() as AddressInfo).port}`,
      clientToken: 'ct',
      accessToken: 'at',
      client: 'test',
      rateLimit: false,
    },
    scope: {},
    publisher: collectingPublisher(),
    state: harness.state,
    streams: harness.streams,
    clock: harness.clock,
  });
  admin = await startAdminServer({ port: 0, deps: harness.deps });
  return admin.url;
}

async function proxied(api: string, operation: string, body: object) {
  // Retries of an update or a read sleep on the harness's manual clock.
  const answer = await driveClock(
    harness!.clock,
    fetch(`${api}/api/connector/v1/${operation}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    }),
    1_000,
  );
  return { status: answer.status, body: (await answer.json()) as { error: string } };
}

describe('the connector proxy when the connector gives no answer', () => {
  it('answers 502 naming it, and that an update may have been applied', async () => {
    const api = await bridgeOfSilentConnector();
    const answer = await proxied(api, 'restrictions/clear', {
      ServiceId: SERVICE,
      Data: [{ Type: 'Stay' }],
    });
    expect(answer.status).toBe(502);
    // Before: "restrictions/clear: no answer from the Connector API (…)", which said nothing of
    // the update sent (and sent again by its retries) that the connector may have applied.
    expect(answer.body.error).toMatch(
      /^restrictions\/clear: no answer from the Connector API \(.+\); it may have been applied: look for its effect before sending it again$/,
    );
  });

  it('says it once for an add, and nothing of it for a read', async () => {
    const api = await bridgeOfSilentConnector();
    const add = await proxied(api, 'vouchers/add', {
      EnterpriseId: ENTERPRISE,
      VoucherParameters: [{ ServiceId: SERVICE, Name: 'v', Type: 'Public' }],
    });
    expect(add.status).toBe(502);
    expect(add.body.error.match(/may have been applied/g)).toHaveLength(1);
    const read = await proxied(api, 'taxEnvironments/getAll', {});
    expect(read.status).toBe(502);
    expect(read.body.error).toMatch(/^taxEnvironments\/getAll: no answer from the Connector API/);
    expect(read.body.error).not.toMatch(/applied/);
  });
});
