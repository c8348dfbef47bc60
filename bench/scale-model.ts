import { ENTITY_TYPES } from '../shared/changes/entity-types.ts';
import { ManualClock } from '../shared/clock.ts';
import { pollSettingsFromEnv } from '../shared/polling/poll-settings.ts';
import { countDynamoDb } from './cost-counters.ts';
import { formatNumber, isMain, quietAwsSdkNotice, recordFigure, renderTable } from './figures.ts';
import { startPollBench } from './poll-setup.ts';
import {
  LAMBDA_PLATFORM_LOG_BYTES,
  POLLER_GB,
  POLLER_LOG_BYTES_PER_POLL,
  PRICES,
} from './prices.ts';
import { type JobCounts, type ScaleRow, scaleRow } from './scale-arithmetic.ts';

const START_MS = Date.UTC(2026, 2, 10, 9, 0, 0);
const MEASURED_MINUTES = 3;
/** Assumed round trip of one Connector API request from Lambda (the local simulator answers faster). */
const CONNECTOR_ROUND_TRIP_MS = 100;
const PROPERTIES = [1, 100, 1_000, 10_000] as const;
const INTERVALS_MINUTES = [1, 5] as const;

/**
 * Polls every stream of one quiet property with the real poller against the simulator and
 * dynalite (instrumented DynamoDB client) at 1-minute polling, and returns what one poll
 * job (one connection, one tick) costs on average.
 */
export async function measureQuietJob(): Promise<JobCounts> {
  const clock = new ManualClock(START_MS);
  const settings = pollSettingsFromEnv(
    { POLL_INTERVAL: '1m', POLL_ENTITIES: ENTITY_TYPES.join(','), POLL_HISTORY_START: '400d' },
    START_MS,
  );
  const bench = await startPollBench({
    size: 'small',
    seed: 3,
    clock,
    settings,
    serverRateLimit: false,
    clientRateLimit: false,
    connection: 'property',
    productCount: 3,
  });
  try {
    const dynamo = countDynamoDb(bench.dynamo.client);
    await bench.pollAll();
    // A first minute of one-second ticks lets every stream settle on its slot.
    for (let second = 0; second < 60; second++) {
      await clock.advance(1_000);
      await bench.pollAll();
    }
    bench.sim.controls.clearRequestLog();
    const [reads, writes] = [dynamo.readUnits, dynamo.writeUnits];
    const commandsBefore = new Map(dynamo.commands);
    let pollMs = 0;
    // One tick a minute, as the AWS planner runs: each tick is one poll job of the connection,
    // run as the poller's handler runs it (a due check per stream, then its poll).
    for (let minute = 0; minute < MEASURED_MINUTES; minute++) {
      await clock.advance(60_000);
      const started = performance.now();
      await bench.pollJob();
      pollMs += performance.now() - started;
    }
    const commands = [...dynamo.commands].map(
      ([name, n]) =>
        `${name} ${formatNumber((n - (commandsBefore.get(name) ?? 0)) / MEASURED_MINUTES, 1)}`,
    );
    console.log(`  DynamoDB commands per quiet job: ${commands.join(', ')}`);
    const connectorRequests = bench.sim.controls.requestLog().length / MEASURED_MINUTES;
    const streams = bench.definitions.length;
    return {
      streams,
      connectorRequests,
      dynamoReadUnits: (dynamo.readUnits - reads) / MEASURED_MINUTES,
      dynamoWriteUnits: (dynamo.writeUnits - writes) / MEASURED_MINUTES,
      billedMs: pollMs / MEASURED_MINUTES + connectorRequests * CONNECTOR_ROUND_TRIP_MS,
      logBytes: LAMBDA_PLATFORM_LOG_BYTES + streams * POLLER_LOG_BYTES_PER_POLL,
    };
  } finally {
    await bench.close();
  }
}

function renderRows(rows: readonly ScaleRow[]): string {
  return renderTable(
    [
      'properties',
      'poll',
      'jobs/min',
      'Lambda inv/min',
      'concurrency',
      'SQS req/min',
      'DDB RRU/s',
      'DDB WRU/s',
      'first quota reached (default)',
      'idle $/property/month',
    ],
    rows.map((r) => [
      formatNumber(r.properties),
      `${r.intervalMinutes} min`,
      formatNumber(r.jobsPerMinute),
      formatNumber(r.lambdaInvocationsPerMinute),
      formatNumber(r.meanConcurrency, 1),
      formatNumber(r.sqsRequestsPerMinute),
      formatNumber(r.dynamoReadUnitsPerSecond, 1),
      formatNumber(r.dynamoWriteUnitsPerSecond, 1),
      `${r.firstQuota.name} (${r.firstQuota.defaultValue}): ${(r.firstQuota.usedShare * 100).toFixed(1)}%`,
      `$${r.idleCostPerPropertyMonthUsd.toFixed(4)}`,
    ]),
  );
}

/** Measures one quiet poll job, then prints the scale model for 1 to 10,000 properties. */
export async function run(): Promise<void> {
  console.log('scale model');
  const counts = await measureQuietJob();
  console.log(
    `  one quiet job, measured: ${counts.streams} streams, ${formatNumber(counts.connectorRequests, 1)} connector requests, ` +
      `${formatNumber(counts.dynamoReadUnits, 1)} RRU, ${formatNumber(counts.dynamoWriteUnits, 1)} WRU, ` +
      `billed ${formatNumber(counts.billedMs)} ms (local time + ${CONNECTOR_ROUND_TRIP_MS} ms per connector request)`,
  );
  const rows = PROPERTIES.flatMap((n) =>
    INTERVALS_MINUTES.map((i) => scaleRow(counts, PRICES, n, i, POLLER_GB)),
  );
  console.log(renderRows(rows));
  const perProperty = rows.find((r) => r.properties === 10_000 && r.intervalMinutes === 1)!;
  recordFigure({
    figure: 'Idle cost per property per month, 1-min polling (10,000 properties)',
    measured: `$${perProperty.idleCostPerPropertyMonthUsd.toFixed(3)}`,
    target: '(information)',
    met: undefined,
  });
}

if (isMain(import.meta.url)) {
  quietAwsSdkNotice();
  await run();
}
