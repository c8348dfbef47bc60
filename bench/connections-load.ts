import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ENTITY_TYPES, EntityTypeSchema } from '../shared/changes/entity-types.ts';
import { mapWithConcurrency } from '../shared/concurrency.ts';
import { groupCpuSeconds, startBridgeChild } from './bridge-process.ts';
import {
  budgetPerToken,
  type LagSummary,
  PollLagTracker,
  summarizeLags,
} from './connections-load-figures.ts';
import { formatNumber, quietAwsSdkNotice } from './figures.ts';
import { startSimulatorChild } from './simulator-child.ts';

const MIB = 1024 * 1024;
/** Admin requests adding connections at once (an integrator's onboarding script). */
const ADD_CONCURRENCY = 4;
const StreamListSchema = z.object({
  streams: z.array(
    z.object({
      id: z.string(),
      connectionId: z.string(),
      lastPollAt: z.string().nullable(),
      nextDueAt: z.string().nullable(),
      initialSyncDone: z.boolean(),
      entityType: z.string(),
      lastError: z.string().nullable(),
    }),
  ),
});

const { values: flags } = parseArgs({
  options: {
    connections: { type: 'string', default: '1000' },
    entities: { type: 'string', default: 'all' },
    minutes: { type: 'string', default: '5' },
    'sample-seconds': { type: 'string', default: '20' },
    activity: { type: 'string', default: '5' },
    history: { type: 'string', default: '1h' },
    // The simulator's world: independent hotels (a chain each, as an integrator connects them)
    // or one chain of them all (each chain-level change is then an event on every connection).
    'one-chain': { type: 'boolean', default: false },
  },
});
const CONNECTIONS = Number(flags.connections);
const ENTITIES =
  flags.entities === 'all'
    ? [...ENTITY_TYPES]
    : z.array(EntityTypeSchema).parse(flags.entities.split(','));
const MINUTES = Number(flags.minutes);
const SAMPLE_MS = Number(flags['sample-seconds']) * 1000;

const ms = (value: number) => (Number.isFinite(value) ? `${(value / 1000).toFixed(1)} s` : '-');
const lagLine = (label: string, lag: LagSummary) =>
  `  ${label}: ${formatNumber(lag.count)} polls, p50 ${ms(lag.p50)}, p99 ${ms(lag.p99)}, max ${ms(lag.max)}`;

/** Streams polled but not done with their first sync at the end, by entity type, with an error. */
function printUnsynced(streams: z.infer<typeof StreamListSchema>['streams']): void {
  const pending = new Map<string, { count: number; error: string | null }>();
  for (const stream of streams) {
    if (stream.initialSyncDone || stream.lastPollAt === null) continue;
    const seen = pending.get(stream.entityType) ?? { count: 0, error: null };
    pending.set(stream.entityType, {
      count: seen.count + 1,
      error: seen.error ?? stream.lastError,
    });
  }
  for (const [entityType, { count, error }] of pending)
    console.log(
      `  first sync polled, not done: ${entityType} ×${count}${error ? ` (${error})` : ''}`,
    );
}

/**
 * The local load run of issue 15: `change-bridge start` (a child process) against a simulator
 * child with one enterprise per connection, N connections added through the admin API, each
 * with its own AccessToken, polling the chosen entities every minute; then M minutes of
 * polling. Prints polls per minute, poll lag (due → started, from `GET /streams` samples),
 * the connector budget per token as the server counted it, and the CPU and peak RSS of the
 * bridge's and the simulator's process groups.
 */
async function main(): Promise<void> {
  quietAwsSdkNotice();
  console.log(
    `connections-load: ${CONNECTIONS} connections × ${ENTITIES.length} streams (${ENTITIES.join(',')}) at 1-minute polling, ${MINUTES} min, history ${flags.history}, simulator activity ${flags.activity}/s, ${flags['one-chain'] ? 'one chain' : 'a chain per hotel'}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  // Enterprise 1 is the CONNECTOR_* connection (`local`, one stream); 2..N+1 are added.
  const sim = await startSimulatorChild({
    enterprises: CONNECTIONS + 1,
    activity: Number(flags.activity),
    chainPerEnterprise: !flags['one-chain'],
  });
  const simCpuStart = await sim.cpuSeconds();
  const bridge = await startBridgeChild({
    env: {
      CONNECTOR_BASE_URL: sim.url,
      CONNECTOR_CLIENT_TOKEN: sim.clientToken,
      CONNECTOR_ACCESS_TOKEN: sim.enterprises[0]!.accessToken,
      POLL_ENTITIES: 'taxEnvironment',
      // Where first syncs start: hotels onboarded now, without their history (a thousand
      // backfills at once are another measure); `--history 400d` reads the simulator's year.
      POLL_HISTORY_START: flags.history,
    },
    pollInterval: '1m',
  }).catch(async (error: unknown) => {
    await sim.stop();
    throw error;
  });
  const bridgePid = bridge.process.pid!;
  // Interrupted: the detached children would outlive the bench.
  const interrupted = () =>
    void Promise.all([bridge.stop(), sim.stop()]).finally(() => process.exit(130));
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const world = await sim.world();
    const zoneOf = new Map(world.enterprises.map((e) => [e.id, e.timeZone]));
    const productOf = new Map<string, string>();
    for (const product of world.products)
      if (!productOf.has(product.enterpriseId)) productOf.set(product.enterpriseId, product.id);
    const addedAt = new Map<string, number>();
    const tracker = new PollLagTracker((connectionId) => addedAt.get(connectionId));
    const addStarted = Date.now();
    const bridgeCpuStart = await groupCpuSeconds(bridgePid);
    const addTimes: number[] = [];
    await mapWithConcurrency(sim.enterprises.slice(1), ADD_CONCURRENCY, async (enterprise, i) => {
      const id = `hotel-${String(i + 1).padStart(5, '0')}`;
      const product = productOf.get(enterprise.enterpriseId);
      const started = Date.now();
      await bridge.call('POST', '/connections', {
        id,
        accessToken: enterprise.accessToken,
        entities: ENTITIES,
        interval: '1m',
        ...(product ? { productIds: [`${product}@${zoneOf.get(enterprise.enterpriseId)}`] } : {}),
        // The simulator's exports belong to its first enterprise: each hotel tracks one id its
        // enterprise does not have (one request per poll, as a tracked export costs).
        exportIds: [randomUUID()],
      });
      addedAt.set(id, started);
      addTimes.push(Date.now() - started);
    });
    const added = Date.now();
    const bridgeCpuAdded = await groupCpuSeconds(bridgePid);
    console.log(
      `  added ${CONNECTIONS} connections through POST /connections in ${ms(added - addStarted)} (p99 ${ms(summarizeLags(addTimes).p99)} each), bridge CPU ${(bridgeCpuAdded - bridgeCpuStart).toFixed(1)} s`,
    );

    const end = added + MINUTES * 60_000;
    const sampleTimes: number[] = [];
    let lastWaiting: number[] = [];
    let lastListing: z.infer<typeof StreamListSchema> = { streams: [] };
    while (Date.now() < end) {
      const next = Math.min(end, Date.now() + SAMPLE_MS);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
      const asked = Date.now();
      const listing = StreamListSchema.parse(await bridge.call('GET', '/streams'));
      sampleTimes.push(Date.now() - asked);
      lastListing = listing;
      const found = tracker.observe(listing.streams.filter((s) => s.connectionId !== 'local'));
      lastWaiting = tracker.waiting(asked);
      console.log(
        `  +${((asked - added) / 1000).toFixed(0)} s: ${found.length} polls since last sample, first syncs done ${tracker.syncedStreams()}/${CONNECTIONS * ENTITIES.length}, due and waiting ${lastWaiting.length} (longest ${ms(Math.max(0, ...lastWaiting))}), GET /streams ${ms(Date.now() - asked)}, load ${loadavg()[0]!.toFixed(2)}`,
      );
    }
    printUnsynced(lastListing.streams);
    const bridgeCpuEnd = await groupCpuSeconds(bridgePid);
    const simCpuEnd = await sim.cpuSeconds();
    const log = await sim.requests();
    const inRun = log.filter((entry) => Date.parse(entry.time) >= addStarted);
    const budget = budgetPerToken(inRun);
    const polls = tracker.polls.filter((p) => p.startedAt >= addStarted);
    const steady = polls.filter((p) => !p.firstSync);
    const first = polls.filter((p) => p.firstSync);
    const lastMinute = polls.filter((p) => p.startedAt >= end - 60_000).length;
    const runSeconds = (end - addStarted) / 1000;
    console.log(`\nconnections-load: ${CONNECTIONS} connections, ${ENTITIES.length} streams each`);
    console.log(
      `  polls observed: ${formatNumber(polls.length)} in ${formatNumber(runSeconds / 60, 1)} min (${formatNumber(polls.length / (runSeconds / 60))}/min; last minute ${formatNumber(lastMinute)}); connector requests ${formatNumber(inRun.length)} (${formatNumber(inRun.length / (runSeconds / 60))}/min)`,
    );
    console.log(
      lagLine(
        'poll lag, steady (due → started)',
        summarizeLags(steady.map((p) => p.startedAt - p.dueAt)),
      ),
    );
    console.log(
      lagLine(
        'poll lag, first syncs (added → started)',
        summarizeLags(first.map((p) => p.startedAt - p.dueAt)),
      ),
    );
    console.log(
      `  still due and waiting at the end: ${lastWaiting.length} streams (longest ${ms(Math.max(0, ...lastWaiting))})`,
    );
    console.log(`  change events published by the bridge: ${formatNumber(bridge.published())}`);
    console.log(
      `  connector budget: ${budget.tokens} tokens, busiest 30 s of any token ${budget.busiestPerToken} (limit 200), ${budget.throttled} answers 429`,
    );
    console.log(
      `  bridge (change-bridge start, process group): CPU ${(bridgeCpuEnd - bridgeCpuStart).toFixed(0)} s over ${runSeconds.toFixed(0)} s = ${formatNumber((100 * (bridgeCpuEnd - bridgeCpuStart)) / runSeconds)}% of one core (after the adds: ${formatNumber((100 * (bridgeCpuEnd - bridgeCpuAdded)) / ((end - added) / 1000))}%), peak RSS ${formatNumber(bridge.peakGroupRss() / MIB)} MiB`,
    );
    console.log(
      `  simulator (its own process group): CPU ${(simCpuEnd - simCpuStart).toFixed(0)} s, peak RSS ${formatNumber(sim.peakRss() / MIB)} MiB`,
    );
    console.log(
      `  GET /streams samples: ${sampleTimes.length}, p50 ${ms(summarizeLags(sampleTimes).p50)}; load average at the end ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await bridge.stop();
    await sim.stop();
  }
}

await main();
