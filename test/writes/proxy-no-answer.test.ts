import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { driveClock } from '../support/drive-clock.ts';
import {
  postToProxy,
  type StandInBridge,
  useConnectorStandIn,
} from './support/connector-stand-in.ts';

const ENTERPRISE = 'a0000000-0000-4000-8000-0000000000e1';
const SERVICE = 'a0000000-0000-4000-8000-0000000000e2';

const standIn = useConnectorStandIn();

/** The admin API on 127.0.0.1 in front of a connector that ends every connection unanswered. */
function bridgeOfSilentConnector(): Promise<StandInBridge> {
  return standIn.start((request) => {
    request.resume();
    request.on('end', () => request.socket.destroy());
  });
}

async function proxied({ url, harness }: StandInBridge, operation: string, body: object) {
  // Retries of an update or a read sleep on the harness's manual clock.
  const answer = await driveClock(harness.clock, postToProxy(url, operation, body), 1_000);
  return { status: answer.status, body: (await answer.json()) as { error: string } };
}

describe('the connector proxy when the connector gives no answer', () => {
  it('answers 502 naming it, and that an update may have been applied', async () => {
    const bridge = await bridgeOfSilentConnector();
    const answer = await proxied(bridge, 'restrictions/clear', {
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
    const bridge = await bridgeOfSilentConnector();
    const add = await proxied(bridge, 'vouchers/add', {
      EnterpriseId: ENTERPRISE,
      VoucherParameters: [{ ServiceId: SERVICE, Name: 'v', Type: 'Public' }],
    });
    expect(add.status).toBe(502);
    expect(add.body.error.match(/may have been applied/g)).toHaveLength(1);
    const read = await proxied(bridge, 'taxEnvironments/getAll', {});
    expect(read.status).toBe(502);
    expect(read.body.error).toMatch(/^taxEnvironments\/getAll: no answer from the Connector API/);
    expect(read.body.error).not.toMatch(/applied/);
  });

  it('says a write the connector refused at connect was not applied', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    // The proxy's connector is down: nothing listens on its port.
    const bridge = await standIn.start(() => undefined, {
      connector: { baseUrl: `http://127.0.0.1:${port}` },
    });
    const update = await proxied(bridge, 'restrictions/clear', {
      ServiceId: SERVICE,
      Data: [{ Type: 'Stay' }],
    });
    expect(update.status).toBe(502);
    // Before: "it may have been applied", of an update that never reached the connector.
    expect(update.body.error).not.toMatch(/may have been applied/);
    const add = await proxied(bridge, 'vouchers/add', {
      EnterpriseId: ENTERPRISE,
      VoucherParameters: [{ ServiceId: SERVICE, Name: 'v', Type: 'Public' }],
    });
    expect(add.status).toBe(502);
    expect(add.body.error).toMatch(/never reached the connector, so it was not applied$/);
  });
});
