import { startSimulator } from '../shared/simulator/simulator.ts';
import { groupCpuSeconds, startBridgeChild } from './bridge-process.ts';
import { formatNumber, isMain, quietAwsSdkNotice } from './figures.ts';
import { startBenchReceiver } from './receiver.ts';

/** Customers updated at once. */
const UPDATED = 5_000;
/** How long the bridge runs after the updates: the burst and the polls that re-read it. */
const SETTLE_MS = 15_000;

/**
 * A part benchmark (not in `npm run bench`): the CPU `change-bridge start` spends per updated
 * record on everything but sending webhooks. As in bench/webhooks.ts, a child process polls a
 * simulator every second and 5,000 customers are updated at once, but the one subscription
 * matches nothing (`customer.created`), so each event is detected, published, routed, queued
 * and stored by the dispatcher, and none is sent. Prints the process group's CPU over the
 * 15 seconds after the updates divided by the updates, and the same for 15 quiet seconds
 * before them. `POLL_OVERLAP` in the environment reaches the bridge (the overlap's re-reads are
 * part of the figure). This machine's CPU figures drift by 15-20 % over tens of minutes:
 * compare two builds by alternating runs.
 */
export async function run(): Promise<void> {
  quietAwsSdkNotice();
  const sim = await startSimulator({ seed: 5, size: 'medium', rateLimit: false });
  const receiver = await startBenchReceiver();
  const bridge = await startBridgeChild({
    env: {
      CONNECTOR_BASE_URL: sim.url,
      CONNECTOR_CLIENT_TOKEN: sim.tokens.clientToken,
      CONNECTOR_ACCESS_TOKEN: sim.tokens.accessToken,
      POLL_ENTITIES: 'customer',
      POLL_HISTORY_START: '400d',
    },
  });
  try {
    await bridge.caughtUp(180_000);
    const created = (await bridge.call('POST', '/subscriptions', {
      url: receiver.url,
      events: ['customer.created'],
    })) as { secret: string };
    receiver.setSecret(created.secret);
    let sent = 0;
    receiver.onVerified = () => sent++;
    const pid = bridge.process.pid!;
    const quietFrom = await groupCpuSeconds(pid);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const quiet = (await groupCpuSeconds(pid)) - quietFrom;

    const model = sim.controls.model;
    const ids = [...model.customers.all()]
      .filter((entry) => entry.record.IsActive)
      .slice(0, UPDATED)
      .map((entry) => entry.record.Id);
    const busyFrom = await groupCpuSeconds(pid);
    for (const id of ids) model.update(model.customers, 'customer', id, { Notes: `bench ${id}` });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const busy = (await groupCpuSeconds(pid)) - busyFrom;
    const perUpdate = (seconds: number) => formatNumber((seconds * 1000) / ids.length, 2);
    console.log(
      `detection CPU (change-bridge start, ${ids.length} customers updated at once, nothing sent): ` +
        `${perUpdate(busy)} ms per update over ${SETTLE_MS / 1000} s ` +
        `(the same span before the updates: ${perUpdate(quiet)} ms); ${sent} webhooks sent`,
    );
  } finally {
    await bridge.stop();
    await receiver.close();
    await sim.close();
  }
}

if (isMain(import.meta.url)) await run();
