import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorEnvOf } from '../../shared/simulator/connector-env.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { type BridgeProcess, bridgeProcess } from '../chaos/bridge-process.ts';
import { compareEvents } from '../polling/journal-oracle.ts';
import { adminCaller, waitForFirstSync } from '../support/admin-call.ts';
import { freePort } from '../support/free-port.ts';
import { modelContent } from '../support/model-content.ts';
import { expectedLocalEvents, recordEnterprises } from '../support/visible-changes.ts';
import { waitFor } from '../support/wait-for.ts';
import { startTestReceiver, type TestReceiver } from './webhook-receiver.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('change-bridge start killed (SIGKILL) while deliveries wait on a slow receiver', () => {
  let sim: RunningSimulator;
  let receiver: TestReceiver;
  let dataDir: string;
  let bridge: BridgeProcess;
  const call = adminCaller(() => bridge.api);

  beforeAll(async () => {
    sim = await startSimulator({ seed: 23, size: 'small', rateLimit: false });
    receiver = await startTestReceiver();
    dataDir = await mkdtemp(join(tmpdir(), 'bridge-crash-slow-'));
    bridge = bridgeProcess({
      port: await freePort(),
      dataDir,
      pollInterval: '500ms',
      env: {
        ...connectorEnvOf(sim),
        POLL_ENTITIES: 'customer',
        POLL_HISTORY_START: '400d',
        CONNECTOR_RATE_LIMIT: 'off',
      },
    });
  });

  afterAll(async () => {
    await bridge?.kill();
    sim?.controls.stopActivity();
    await receiver?.close();
    await sim?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('delivers every change at least once after the restart, a repeat under the id it had', async () => {
    bridge.start();
    await waitForFirstSync((method, path) => call(method, path).catch(() => undefined));
    const subscription = (await call('POST', '/subscriptions', { url: receiver.url })) as {
      secret: string;
    };
    receiver.setSecret(subscription.secret);
    receiver.slow(500);

    const from = sim.controls.journal().at(-1)?.seq ?? 0;
    const before = modelContent(sim);
    const enterprises = new Map<string, string>();
    recordEnterprises(sim, enterprises);
    sim.controls.startActivity(40);
    await waitFor(
      () => receiver.received.length >= 5 && receiver.answering >= 3,
      15_000,
      'deliveries answered and in flight',
      10,
    );
    await bridge.kill();
    const answeredBefore = receiver.received.length;
    bridge.start();
    await sleep(1_500);
    sim.controls.stopActivity();

    const entries = sim.controls.journal(from);
    recordEnterprises(sim, enterprises);
    const expected = expectedLocalEvents(
      sim,
      entries,
      enterprises,
      before,
      modelContent(sim),
    ).filter((event) => event.type.startsWith('customer.'));
    expect(expected.length).toBeGreaterThan(5);
    const got = () => receiver.received.map(({ type, subject }) => ({ type, subject }));
    await waitFor(
      () => compareEvents(expected, got()).missing.length === 0,
      20_000,
      'every change to be delivered',
      100,
    ).catch(() => undefined);
    expect(compareEvents(expected, got()).missing).toEqual([]);

    // A repeat is the same event again: its webhook-id, type and subject (README: at-least-once,
    // receivers deduplicate on webhook-id).
    const seen = new Map<string, string>();
    let repeats = 0;
    for (const event of receiver.received) {
      const key = `${event.type} ${event.subject}`;
      if (seen.has(event.webhookId)) {
        repeats++;
        expect(seen.get(event.webhookId)).toBe(key);
      } else seen.set(event.webhookId, key);
    }
    console.log(
      `${expected.length} changes expected, ${receiver.received.length} delivered (${answeredBefore} before the SIGKILL), ${repeats} repeated`,
    );
    expect(receiver.rejected).toBe(0);
    expect(await bridge.stop()).toBe(0);
  }, 60_000);
});
