import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { type Backends, BackendsSchema } from './backfill/backends.ts';
import { startChild, stopChild } from './backfill/child.ts';
import { type BridgeChild, groupCpuSeconds, startBridgeChild } from './bridge-process.ts';
import { formatNumber, isMain, quietAwsSdkNotice, recordFigure } from './figures.ts';
import { type CpuSpan, mainThreadCpuSeconds, processCpuSeconds, watchCpu } from './machine-cpu.ts';
import { type BenchReceiver, startBenchReceiver } from './receiver.ts';

const MB = 1024 * 1024;
/** 200 requests × 1,000 records per 30 s (design.md, Performance targets). */
const CEILING_PER_SECOND = (200 * 1000) / 30;
/** The unthrottled run ends when everything is delivered, or after this long. */
const UNTHROTTLED_SPAN_MS = Number(process.env.BENCH_START_SPAN_MS ?? 300_000);
/** The throttled run reads for this long: 2.5 budget windows of 30 s, enough for a steady rate. */
const THROTTLED_SPAN_MS = Number(process.env.BENCH_START_THROTTLED_SPAN_MS ?? 75_000);
/** The run with backpressure lifted reads for this long (the poller's own rate, the backlog on disk). */
const LIFTED_SPAN_MS = Number(process.env.BENCH_START_LIFTED_SPAN_MS ?? 60_000);
/** A bound no 100,000-record backfill reaches: detection never waits for deliveries. */
const LIFTED_MAX_BACKLOG = '1000000';
const PROBE_MS = 250;
/**
 * Customers of the long first sync: three windows' worth of requests, so the budget's sustained
 * rate bounds it rather than the burst a 100,000-record sync fits in.
 */
const LONG_SYNC_CUSTOMERS = 300_000;
/** Time the poll that ends a first sync takes to save its success after it commits, at most. */
const SUCCESS_SAVED_MS = 100;
/** The runs of {@link run}, in order; `BENCH_START_RUNS` (comma-separated) picks some of them. */
const ALL_RUNS = [
  'unthrottled',
  'lifted',
  'throttled',
  'baseline',
  'baseline-long',
  'baseline-unthrottled',
] as const;

const SubscriptionSchema = z.object({ secret: z.string() });
const StreamsSchema = z.object({
  streams: z.array(
    z.object({
      entityType: z.string(),
      initialSyncDone: z.boolean(),
      recordsRead: z.number(),
      lastSuccessAt: z.string().nullable(),
    }),
  ),
});
type CustomerStream = z.infer<typeof StreamsSchema>['streams'][number];

/** What one run through `change-bridge start` measured. */
interface StartRun {
  /** Records read (= `customer.created` events published: the store started empty). */
  read: number;
  /** Seconds from ready to the end of the first sync (or to the end of the span). */
  readSeconds: number;
  /** The first sync reached the present within the span. */
  readAll: boolean;
  verified: number;
  /** Seconds from ready to the last verified delivery. */
  deliverSeconds: number;
  rejected: number;
  peakGroupRss: number;
  /**
   * CPU from ready until a probe found the first sync done (or the span's end): the bridge's
   * process group's, its main thread's and the backends' (the simulator serving the pages).
   */
  readCpu: CpuSpan<'bridge' | 'bridgeMain' | 'backends'>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function bridgeEnv(backends: Backends, rateLimit: 'on' | 'off'): Record<string, string> {
  return {
    // The bridge's default unless this run sets it (BRIDGE_MAX_BACKLOG of the benchmark's own
    // environment would otherwise reach the child).
    BRIDGE_MAX_BACKLOG: '',
    CONNECTOR_BASE_URL: backends.connectorUrl,
    CONNECTOR_CLIENT_TOKEN: backends.clientToken,
    CONNECTOR_ACCESS_TOKEN: backends.accessToken,
    CONNECTOR_RATE_LIMIT: rateLimit,
    POLL_HISTORY_START: '400d',
  };
}

/**
 * Creates the subscription before the measured run, so it exists before the first customer
 * event is fanned out: a first start polls tax environments only (a handful, stored silently),
 * takes the subscription through the admin API, and stops.
 */
async function subscribe(
  dataDir: string,
  env: Record<string, string>,
  receiver: BenchReceiver,
): Promise<void> {
  const setup = await startBridgeChild({
    env: { ...env, POLL_ENTITIES: 'taxEnvironment', INITIAL_SYNC: 'baseline' },
    dataDir,
  });
  try {
    const created = await setup.call('POST', '/subscriptions', {
      url: receiver.url,
      description: 'bench receiver',
    });
    receiver.setSecret(SubscriptionSchema.parse(created).secret);
  } finally {
    await setup.stop();
  }
}

/** The customer stream as `GET /streams` shows it; undefined while the bridge does not answer. */
async function customerStream(bridge: BridgeChild): Promise<CustomerStream | undefined> {
  const listing = StreamsSchema.safeParse(await bridge.call('GET', '/streams').catch(() => null));
  return listing.success
    ? listing.data.streams.find((s) => s.entityType === 'customer')
    : undefined;
}

/**
 * Milliseconds from `startedAtMs` (epoch) to the end of the customers' first sync, which a probe
 * found done `probedAfterMs` after the start: the stream's last success, which the poll that
 * caught it up writes just after it commits the window (read again a moment later, so that a
 * probe between the two cannot see the success of an earlier poll), so the probe's interval
 * adds nothing; the probe's own time when that is missing or later (a poll after it can only
 * move it later, never earlier).
 */
async function syncEndedAfterMs(
  bridge: BridgeChild,
  startedAtMs: number,
  probedAfterMs: number,
): Promise<number> {
  await sleep(SUCCESS_SAVED_MS);
  const lastSuccessAt = (await customerStream(bridge))?.lastSuccessAt ?? null;
  const succeededAt = lastSuccessAt === null ? Number.NaN : Date.parse(lastSuccessAt);
  return Number.isFinite(succeededAt)
    ? Math.min(succeededAt - startedAtMs, probedAfterMs)
    : probedAfterMs;
}

/**
 * The user's path: `change-bridge start` as a child process group (its own data dir and port,
 * `INITIAL_SYNC=emit`, customers only) against the large simulator (100,000 customers) in a
 * separate process, one subscriber on a local receiver that verifies every signature with
 * `standardwebhooks`. Runs until every event read is delivered, or `spanMs`; with the limit
 * off, the server's limit and the bridge's own budget are both lifted.
 */
async function backfillThroughStart(
  rateLimit: 'on' | 'off',
  spanMs: number,
  extraEnv: Record<string, string> = {},
): Promise<StartRun> {
  const backends = startChild('backfill/backends.ts', { BENCH_RATE_LIMIT: rateLimit });
  const receiver = await startBenchReceiver();
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-start-'));
  let verified = 0;
  let lastVerifiedAt = 0;
  receiver.onVerified = (webhook) => {
    verified++;
    lastVerifiedAt = webhook.at;
  };
  let bridge: BridgeChild | undefined;
  try {
    const env = {
      ...bridgeEnv(BackendsSchema.parse(JSON.parse(await backends.firstLine)), rateLimit),
      ...extraEnv,
    };
    await subscribe(dataDir, env, receiver);
    bridge = await startBridgeChild({
      env: { ...env, POLL_ENTITIES: 'customer', INITIAL_SYNC: 'emit' },
      dataDir,
    });
    // Timed from the moment the bridge is ready (its admin API answers), as a user sees it.
    const started = performance.now();
    const startedAtMs = Date.now();
    const readSpan = await watchReadCpu(bridge, backends.process.pid!);
    let readCpu: StartRun['readCpu'] | undefined;
    let readAt = 0;
    let read = 0;
    while (performance.now() - started < spanMs) {
      await sleep(PROBE_MS);
      const stream = readAt === 0 ? await customerStream(bridge) : undefined;
      if (stream?.initialSyncDone) {
        readCpu = await readSpan();
        const probedAfterMs = performance.now() - started;
        read = bridge.published();
        readAt = started + (await syncEndedAfterMs(bridge, startedAtMs, probedAfterMs));
      }
      if (readAt !== 0 && verified >= read) break;
    }
    const end = performance.now();
    return {
      read: readAt === 0 ? bridge.published() : read,
      readSeconds: ((readAt || end) - started) / 1000,
      readAll: readAt !== 0,
      verified,
      deliverSeconds: ((verified > 0 ? lastVerifiedAt : end) - started) / 1000,
      rejected: receiver.rejected,
      peakGroupRss: bridge.peakGroupRss(),
      readCpu: readCpu ?? (await readSpan()),
    };
  } finally {
    await bridge?.stop();
    await receiver.close();
    await stopChild(backends);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Starts counting the CPU a run's reading takes: the bridge's group, its main thread, the backends. */
function watchReadCpu(bridge: BridgeChild, backendsPid: number) {
  // The bridge leads its own process group: its pid is the group's id.
  const bridgePid = bridge.process.pid!;
  return watchCpu({
    bridge: () => groupCpuSeconds(bridgePid),
    bridgeMain: () => mainThreadCpuSeconds(bridgePid),
    backends: () => processCpuSeconds(backendsPid),
  });
}

/** What a first sync without events measured. */
interface BaselineRun {
  read: number;
  readSeconds: number;
  /**
   * CPU over the same time: the whole machine's, the bridge's process group's, its main thread's
   * (the one its JavaScript runs on; the rest is LevelDB's compactions, garbage collection's
   * helpers and libuv's pool) and the backends' process's (the simulator serving the pages).
   */
  cpu: CpuSpan<'bridge' | 'bridgeMain' | 'backends'>;
  readAll: boolean;
  peakGroupRss: number;
}

/**
 * The bridge's default first sync (`INITIAL_SYNC=baseline`: snapshots stored, no events, so no
 * subscriber) of the 100,000 customers through `change-bridge start`, with the connector's limit
 * `rateLimit`: records read (the stream's own counter) per second from ready to the end of the
 * first sync, or to `spanMs`.
 */
async function baselineSyncThroughStart(
  rateLimit: 'on' | 'off',
  spanMs: number,
  customers?: number,
): Promise<BaselineRun> {
  const backends = startChild('backfill/backends.ts', {
    BENCH_RATE_LIMIT: rateLimit,
    ...(customers === undefined ? {} : { BENCH_CUSTOMERS: String(customers) }),
  });
  let bridge: BridgeChild | undefined;
  try {
    const env = bridgeEnv(BackendsSchema.parse(JSON.parse(await backends.firstLine)), rateLimit);
    bridge = await startBridgeChild({
      env: { ...env, POLL_ENTITIES: 'customer', INITIAL_SYNC: 'baseline' },
    });
    const started = performance.now();
    const startedAtMs = Date.now();
    const span = await watchReadCpu(bridge, backends.process.pid!);
    let stream = await customerStream(bridge);
    while (performance.now() - started < spanMs && stream?.initialSyncDone !== true) {
      await sleep(PROBE_MS);
      stream = (await customerStream(bridge)) ?? stream;
    }
    const probedAfterMs = performance.now() - started;
    const readSeconds =
      (stream?.initialSyncDone
        ? await syncEndedAfterMs(bridge, startedAtMs, probedAfterMs)
        : probedAfterMs) / 1000;
    return {
      read: stream?.recordsRead ?? 0,
      readSeconds,
      cpu: await span(),
      readAll: stream?.initialSyncDone === true,
      peakGroupRss: bridge.peakGroupRss(),
    };
  } finally {
    await bridge?.stop();
    await stopChild(backends);
  }
}

function reportUnthrottled(run: StartRun): void {
  const readRate = run.read / run.readSeconds;
  const deliverRate = run.verified / run.deliverSeconds;
  console.log(
    `  unthrottled: ${formatNumber(run.read)} read in ${formatNumber(run.readSeconds, 1)} s${run.readAll ? '' : ' (first sync not finished)'}; ` +
      `${formatNumber(run.verified)} verified deliveries in ${formatNumber(run.deliverSeconds, 1)} s ` +
      `(${run.rejected} rejected); peak RSS of the process group ${formatNumber(run.peakGroupRss / MB)} MB; ` +
      `while reading: ${describeReadCpu(run.readCpu, run.read)}`,
  );
  recordFigure({
    figure: 'Backfill 100k customers unthrottled via change-bridge start: records read',
    measured: `${formatNumber(readRate)} records/s`,
    target: '>= 8,000 records/s',
    met: readRate >= 8000 && run.readAll,
  });
  recordFigure({
    figure: 'Backfill 100k customers unthrottled via change-bridge start: verified deliveries',
    measured: `${formatNumber(deliverRate)}/s (${formatNumber(run.verified)} of ${formatNumber(run.read)})`,
    target: 'information',
    met: undefined,
  });
  recordFigure({
    figure: 'Backfill 100k customers unthrottled via change-bridge start: peak RSS of the group',
    measured: `${formatNumber(run.peakGroupRss / MB)} MB`,
    target: '<= 300 MB',
    met: run.peakGroupRss / MB <= 300,
  });
}

function reportLifted(run: StartRun): void {
  const readRate = run.read / run.readSeconds;
  console.log(
    `  unthrottled, BRIDGE_MAX_BACKLOG=${LIFTED_MAX_BACKLOG}: ${formatNumber(run.read)} read in ${formatNumber(run.readSeconds, 1)} s ` +
      `(${formatNumber(run.read - run.verified)} waiting on disk at the end); peak RSS of the process group ${formatNumber(run.peakGroupRss / MB)} MB; ` +
      `while reading: ${describeReadCpu(run.readCpu, run.read)}`,
  );
  recordFigure({
    figure:
      'Backfill 100k customers unthrottled via change-bridge start, backpressure lifted: records read',
    measured: `${formatNumber(readRate)} records/s, peak RSS ${formatNumber(run.peakGroupRss / MB)} MB`,
    target: 'information (the poller unbounded by delivery)',
    met: undefined,
  });
}

function reportThrottled(run: StartRun): void {
  const rate = run.read / run.readSeconds;
  const share = rate / CEILING_PER_SECOND;
  console.log(
    `  200 per 30 s: ${formatNumber(run.read)} read in ${formatNumber(run.readSeconds, 1)} s; ` +
      `peak RSS of the process group ${formatNumber(run.peakGroupRss / MB)} MB; ${describeReadCpu(run.readCpu, run.read)}`,
  );
  recordFigure({
    figure: 'Backfill customers via change-bridge start, 200 req/30 s limit in force',
    measured: `${formatNumber(rate)} records/s = ${(share * 100).toFixed(0)}% of 6,667`,
    target: '>= 95% of 6,667/s',
    met: share >= 0.95,
  });
}

/**
 * The CPU a reading took per record read: the bridge's process group's, its main thread's, the
 * simulator's, and how busy the machine was (steal: taken by the host for other machines).
 */
function describeReadCpu(cpu: StartRun['readCpu'], read: number): string {
  const perRecord = (seconds: number) => formatNumber((seconds * 1e6) / Math.max(1, read));
  const { machine, seconds } = cpu;
  return (
    `bridge CPU ${perRecord(seconds.bridge)} µs per record (its main thread ${perRecord(seconds.bridgeMain)}); ` +
    `simulator ${perRecord(seconds.backends)} µs per record; ` +
    `${(machine.busyShare * 100).toFixed(0)} % of ${machine.cores} cores busy (steal ${(machine.stealShare * 100).toFixed(0)} %)`
  );
}

/** The line of a default first sync: what it read, how fast, and the CPU and memory it took. */
function describeBaseline(run: BaselineRun, limit: string): string {
  return (
    `  ${limit}, INITIAL_SYNC=baseline (no events): ${formatNumber(run.read)} read in ${formatNumber(run.readSeconds, 1)} s` +
    `${run.readAll ? '' : ' (first sync not finished)'}; ` +
    `peak RSS of the process group ${formatNumber(run.peakGroupRss / MB)} MB; ${describeReadCpu(run.cpu, run.read)}`
  );
}

/** Share of the 6,667/s ceiling a first sync under the limit read at, as a figure. */
function ceilingShareFigure(run: BaselineRun, customers: string) {
  const rate = run.read / run.readSeconds;
  const share = rate / CEILING_PER_SECOND;
  return {
    figure: `First sync of ${customers} customers via change-bridge start, INITIAL_SYNC=baseline, 200 req/30 s limit in force`,
    measured: `${formatNumber(rate)} records/s = ${(share * 100).toFixed(0)}% of 6,667`,
    share,
  };
}

function reportThrottledBaseline(run: BaselineRun): void {
  const { figure, measured, share } = ceilingShareFigure(run, '100k');
  console.log(describeBaseline(run, '200 per 30 s'));
  recordFigure({
    figure,
    measured,
    target: '>= 95% of 6,667/s',
    met: share >= 0.95 && run.readAll,
  });
}

/**
 * The long first sync under the limit: three windows' worth of requests, so the figure is the
 * budget's sustained rate, not the burst of its first window (information beside the target's
 * 100,000 records).
 */
function reportLongBaseline(run: BaselineRun): void {
  const { figure, measured } = ceilingShareFigure(run, '300k');
  console.log(describeBaseline(run, '200 per 30 s, 300,000 customers'));
  recordFigure({
    figure: `${figure} (sustained)`,
    measured,
    target: 'information (the target counts 100k)',
    met: undefined,
  });
}

/**
 * The default first sync with the limit lifted: how fast the bridge itself reads and stores,
 * with no budget to wait for (information: design.md sets no target for it).
 */
function reportUnthrottledBaseline(run: BaselineRun): void {
  const rate = run.read / run.readSeconds;
  console.log(describeBaseline(run, 'unthrottled'));
  recordFigure({
    figure:
      'First sync of 100k customers via change-bridge start, INITIAL_SYNC=baseline, unthrottled',
    measured: `${formatNumber(rate)} records/s`,
    target: 'information (the bridge bound by its own CPU)',
    met: undefined,
  });
}

/**
 * `npm run bench`: the 100,000-customer backfill through `change-bridge start`, unthrottled
 * (read rate, verified deliveries, peak group RSS over the whole run); unthrottled with
 * backpressure lifted for a bounded span (the poller's own read rate, the backlog on disk);
 * then with the connector's 200 requests per 30 s in force for a bounded span (read rate
 * against 6,667/s); then the default first sync (no events) with the limit in force, to its end:
 * of the 100,000 customers, of 300,000 (past the first window, where the budget bounds it), and
 * of the 100,000 without the limit.
 * Every run uses the bridge's defaults unless it says otherwise.
 */
export async function run(): Promise<void> {
  quietAwsSdkNotice();
  console.log('backfill through change-bridge start (100,000 customers, one subscriber)');
  const runs = new Set((process.env.BENCH_START_RUNS ?? ALL_RUNS.join(',')).split(','));
  if (runs.has('unthrottled'))
    reportUnthrottled(await backfillThroughStart('off', UNTHROTTLED_SPAN_MS));
  if (runs.has('lifted'))
    reportLifted(
      await backfillThroughStart('off', LIFTED_SPAN_MS, { BRIDGE_MAX_BACKLOG: LIFTED_MAX_BACKLOG }),
    );
  if (runs.has('throttled')) reportThrottled(await backfillThroughStart('on', THROTTLED_SPAN_MS));
  if (runs.has('baseline'))
    reportThrottledBaseline(await baselineSyncThroughStart('on', UNTHROTTLED_SPAN_MS));
  if (runs.has('baseline-long'))
    reportLongBaseline(
      await baselineSyncThroughStart('on', UNTHROTTLED_SPAN_MS, LONG_SYNC_CUSTOMERS),
    );
  if (runs.has('baseline-unthrottled'))
    reportUnthrottledBaseline(await baselineSyncThroughStart('off', UNTHROTTLED_SPAN_MS));
}

if (isMain(import.meta.url)) await run();
