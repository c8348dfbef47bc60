import { loadavg } from 'node:os';
import { Agent, request } from 'undici';
import { ENDPOINT_CONCURRENCY_DEFAULT } from '../shared/webhooks/endpoint-settings.ts';
import { groupCpuSeconds, sampleGroupPeakRss } from './bridge-process.ts';
import { type CustomerBurstBench, startCustomerBurstBench } from './customer-burst.ts';
import { formatNumber, isMain, quietAwsSdkNotice, recordFigure } from './figures.ts';
import {
  type CpuSpan,
  mainThreadCpuSeconds,
  ownCpuSeconds,
  processCpuSeconds,
  watchCpu,
} from './machine-cpu.ts';
import type { VerifiedWebhook } from './receiver.ts';

/** Customers updated at once. */
const UPDATED = 5_000;
const DELIVERY_WAIT_MS = 300_000;
/** Past the poll overlap (5 s by default), so a second burst's polls re-read none of the first's. */
const SECOND_BURST_PAUSE_MS = 7_000;

/** Verified deliveries per second from the first to the last. */
function ratePerSecond(webhooks: readonly VerifiedWebhook[]): number {
  const times = webhooks.map((w) => w.at);
  const seconds = (Math.max(...times) - Math.min(...times)) / 1000;
  return seconds > 0 ? (webhooks.length - 1) / seconds : Number.NaN;
}

/**
 * Where the machine's CPU went over one run, per verified delivery: every process, and the
 * bridge (in its run, its main thread apart: the one thread its JavaScript runs on), this
 * process (the receiver verifying signatures, and the bare loop in its run) and the simulator
 * among them; the rest is other processes and kernel work not charged to a process. Pure.
 */
function describeCpu(
  {
    machine,
    seconds,
  }: CpuSpan<'bench' | 'simulator'> & { seconds: { bridge?: number; bridgeMain?: number } },
  deliveries: number,
): string {
  const perDelivery = (cpu: number) => ((cpu * 1000) / Math.max(1, deliveries)).toFixed(2);
  const bridge = seconds.bridge ?? 0;
  const mainThread =
    seconds.bridgeMain === undefined ? '' : ` (its main thread ${perDelivery(seconds.bridgeMain)})`;
  const named = [
    ...(seconds.bridge === undefined ? [] : [`bridge ${perDelivery(bridge)}${mainThread}`]),
    `receiver and benchmark ${perDelivery(seconds.bench)}`,
    `simulator ${perDelivery(seconds.simulator)}`,
    `the rest ${perDelivery(machine.busySeconds - bridge - seconds.bench - seconds.simulator)}`,
  ];
  return (
    `machine ${perDelivery(machine.busySeconds)} ms of CPU per delivery (${named.join(', ')}), ` +
    `${(machine.busyShare * 100).toFixed(0)} % of ${machine.cores} cores busy, steal ${(machine.stealShare * 100).toFixed(0)} %`
  );
}

/** POSTs exactly the bodies and signature headers the bridge sent, with `concurrency` keep-alive loops. */
async function replay(
  url: string,
  sent: readonly VerifiedWebhook[],
  concurrency: number,
): Promise<void> {
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 });
  let next = 0;
  const worker = async () => {
    while (next < sent.length) {
      const webhook = sent[next++]!;
      const response = await request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': webhook.headers['webhook-id']!,
          'webhook-timestamp': webhook.headers['webhook-timestamp']!,
          'webhook-signature': webhook.headers['webhook-signature']!,
        },
        body: webhook.body,
        dispatcher: agent,
      });
      await response.body.dump();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await agent.close();
}

/** One burst's deliveries and what they cost, from the updates to the last verified delivery. */
interface BurstRun {
  delivered: VerifiedWebhook[];
  updated: number;
  updatedAt: number;
  /** When the bridge had printed its last event of the updates, if seen. */
  detectedAt: number | undefined;
  cpu: CpuSpan<'bridge' | 'bridgeMain' | 'bench' | 'simulator'>;
  peakRssBytes: number;
}

/** Starts counting the CPU of the bridge's group, its main thread, this process and the simulator. */
function watchBridgeCpu(bench: CustomerBurstBench) {
  const pid = bench.bridge.process.pid!;
  return watchCpu({
    bridge: () => groupCpuSeconds(pid),
    bridgeMain: () => mainThreadCpuSeconds(pid),
    bench: ownCpuSeconds,
    simulator: () => processCpuSeconds(bench.simulatorPid),
  });
}

/** Updates {@link UPDATED} customers at once and waits until the receiver has verified them all. */
async function burst(bench: CustomerBurstBench): Promise<BurstRun> {
  const { receiver, bridge } = bench;
  const delivered: VerifiedWebhook[] = [];
  receiver.onVerified = (webhook) => delivered.push(webhook);
  const stopCpu = await watchBridgeCpu(bench);
  const rss = sampleGroupPeakRss(bridge.process.pid!, 200);
  const publishedBefore = bridge.published();
  const updatedAt = performance.now();
  const ids = await bench.updateCustomers(UPDATED);
  const deadline = Date.now() + DELIVERY_WAIT_MS;
  let detectedAt: number | undefined;
  while (delivered.length < ids.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    if (detectedAt === undefined && bridge.published() - publishedBefore >= ids.length)
      detectedAt = performance.now();
  }
  // CPU of the bridge's process group from the updates to the last delivery, detection included:
  // steadier than a rate on a machine the receiver and the loop share.
  const cpu = await stopCpu();
  rss.stop();
  return { delivered, updated: ids.length, updatedAt, detectedAt, cpu, peakRssBytes: rss.peak() };
}

/** The bridge's CPU per verified delivery of a burst, all its threads, in ms. */
function cpuMsPerDelivery(run: BurstRun): number {
  return run.cpu.seconds.bridge * (1000 / Math.max(1, run.delivered.length));
}

/**
 * Deliveries per second to ONE endpoint in the user's path: `change-bridge start` as a child
 * process polls a simulator every second; 5,000 customers are updated at once; a local
 * receiver verifies every webhook with `standardwebhooks`. The rate runs from the first to the
 * last verified delivery. Then, in the same run, a bare undici keep-alive loop with the same
 * concurrency posts the same signed bodies to the same receiver. The figure is that first
 * burst's, on a bridge that has delivered nothing before (its first sync is silent); a second
 * burst on the same bridge, its code by then compiled by V8's optimising compiler, is printed
 * beside it for what the first one's cold start costs.
 */
export async function run(): Promise<void> {
  quietAwsSdkNotice();
  const concurrency = ENDPOINT_CONCURRENCY_DEFAULT;
  console.log(
    `webhooks (one endpoint, change-bridge start as a child process, concurrency ${concurrency})`,
  );
  const bench = await startCustomerBurstBench(['customer.updated']);
  const { receiver } = bench;
  try {
    const first = await burst(bench);
    const { delivered } = first;
    const bridgeRate = ratePerSecond(delivered);
    const bridgeCount = delivered.length;
    const loadDuringBridge = loadavg()[0]!;

    const replayed: VerifiedWebhook[] = [];
    receiver.onVerified = (webhook) => replayed.push(webhook);
    const loopRun = await watchCpu({
      bench: ownCpuSeconds,
      simulator: () => processCpuSeconds(bench.simulatorPid),
    });
    await replay(receiver.url, delivered.slice(0, bridgeCount), concurrency);
    const loopCpu = await loopRun();
    const bareRate = ratePerSecond(replayed);
    const ratio = bridgeRate / bareRate;
    // Both rates share the machine with whatever else runs: the load average says how much.
    console.log(
      `  bridge: ${bridgeCount} of ${first.updated} verified, ${formatNumber(bridgeRate)}/s; ` +
        `bare keep-alive loop (same bodies, ${concurrency} connections): ${replayed.length} verified, ${formatNumber(bareRate)}/s; ` +
        `ratio ${ratio.toFixed(2)}; ${receiver.rejected} rejected; ` +
        `bridge CPU ${cpuMsPerDelivery(first).toFixed(2)} ms per delivery, peak group RSS ${formatNumber(first.peakRssBytes / (1024 * 1024))} MB; ` +
        `1-min load average ${loadDuringBridge.toFixed(1)} after the bridge's run, ${loadavg()[0]!.toFixed(1)} after the loop's`,
    );
    console.log(
      `  bridge's run: ${describeCpu(first.cpu, bridgeCount)}; ${describeSpan(delivered, first.updatedAt)}; ` +
        describeAfterDetection(delivered, first.updatedAt, first.detectedAt),
    );
    console.log(`  bare loop's run: ${describeCpu(loopCpu, replayed.length)}`);
    // The first burst's re-reads (the overlap) end before the second begins.
    await new Promise((resolve) => setTimeout(resolve, SECOND_BURST_PAUSE_MS));
    const second = await burst(bench);
    console.log(
      `  a second burst on the same bridge (not the figure: its code compiled by then): ` +
        `${second.delivered.length} of ${second.updated} verified, ${formatNumber(ratePerSecond(second.delivered))}/s, ` +
        `${(ratePerSecond(second.delivered) / bareRate).toFixed(2)} of the bare loop above; ` +
        `bridge CPU ${cpuMsPerDelivery(second).toFixed(2)} ms per delivery; ${describeSpan(second.delivered, second.updatedAt)}`,
    );
    recordFigure({
      figure: `Webhook deliveries/s to one endpoint (change-bridge start) / bare keep-alive loop, concurrency ${concurrency}`,
      measured: `${ratio.toFixed(2)} (${formatNumber(bridgeRate)} / ${formatNumber(bareRate)} per s)`,
      target: '>= 0.8',
      met: ratio >= 0.8 && bridgeCount === first.updated,
    });
  } finally {
    await bench.close();
  }
}

/**
 * When the first and the last verified delivery came after the updates: the rate runs between
 * the two, so a bridge that delivers its first webhooks while detection still runs shows a lower
 * rate than one that holds them back, for the same end.
 */
function describeSpan(delivered: readonly VerifiedWebhook[], updatedAt: number): string {
  const after = (webhook: VerifiedWebhook | undefined) =>
    webhook === undefined ? '-' : `${((webhook.at - updatedAt) / 1000).toFixed(1)} s`;
  return `first verified delivery ${after(delivered[0])} after the updates, last ${after(delivered.at(-1))}`;
}

/**
 * How the deliveries split around the end of detection (the bridge's last event of the updates
 * printed, to the nearest 25 ms): those verified before it, and the rate of the rest, which
 * delivery alone (and the overlap's re-reads) shares the bridge with. Pure.
 */
function describeAfterDetection(
  delivered: readonly VerifiedWebhook[],
  updatedAt: number,
  detectedAt: number | undefined,
): string {
  if (detectedAt === undefined) return 'detection not seen to end';
  const before = delivered.filter((webhook) => webhook.at <= detectedAt).length;
  const after = delivered.length - before;
  const last = delivered.at(-1)?.at ?? detectedAt;
  const rate = last > detectedAt ? (after * 1000) / (last - detectedAt) : Number.NaN;
  return (
    `its last event published ${((detectedAt - updatedAt) / 1000).toFixed(1)} s after the updates, ` +
    `${formatNumber(before)} verified by then, the ${formatNumber(after)} after it at ${formatNumber(rate)}/s`
  );
}

if (isMain(import.meta.url)) await run();
