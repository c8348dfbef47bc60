import { groupCpuSeconds } from './bridge-process.ts';
import { startCustomerBurstBench } from './customer-burst.ts';
import { formatNumber, isMain, quietAwsSdkNotice } from './figures.ts';

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
  const bench = await startCustomerBurstBench(['customer.created']);
  const { receiver, bridge } = bench;
  try {
    let sent = 0;
    receiver.onVerified = () => sent++;
    const pid = bridge.process.pid!;
    const quietFrom = await groupCpuSeconds(pid);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const quiet = (await groupCpuSeconds(pid)) - quietFrom;

    const busyFrom = await groupCpuSeconds(pid);
    const ids = await bench.updateCustomers(UPDATED);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const busy = (await groupCpuSeconds(pid)) - busyFrom;
    const perUpdate = (seconds: number) => formatNumber((seconds * 1000) / ids.length, 2);
    console.log(
      `detection CPU (change-bridge start, ${ids.length} customers updated at once, nothing sent): ` +
        `${perUpdate(busy)} ms per update over ${SETTLE_MS / 1000} s ` +
        `(the same span before the updates: ${perUpdate(quiet)} ms); ${sent} webhooks sent`,
    );
  } finally {
    await bench.close();
  }
}

if (isMain(import.meta.url)) await run();
