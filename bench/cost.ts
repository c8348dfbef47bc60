import { type CostPipeline, type RoundCounts, startCostPipeline } from './cost-pipeline.ts';
import { formatNumber, isMain, quietAwsSdkNotice, recordFigure, renderTable } from './figures.ts';
import {
  DISPATCHER_GB,
  FIXED_CUSTOM_METRICS,
  LAMBDA_PLATFORM_LOG_BYTES,
  MONTHLY_PRICES,
  POLLER_GB,
  POLLER_LOG_BYTES_PER_POLL,
  PRICES,
} from './prices.ts';
import { scaleRow } from './scale-arithmetic.ts';
import { measureQuietJob } from './scale-model.ts';

/** Events of the headline round (one subscriber, no user rule on the bus). */
const CHANGES = 2_000;
/** Events of the other rounds (more subscribers, a user rule): enough for stable ratios. */
const SMALL_CHANGES = 500;
const GB = 1024 ** 3;
/** A user rule on the bus that matches every change event. */
const RULE_MATCHING_ALL = { source: ['change-bridge'] };

interface CostRow {
  item: string;
  counted: string;
  perEvent: number;
  dollars: number;
}

/** Prices one round: each item from its counted requests or units, per million events. */
export function priceRound(r: RoundCounts): CostRow[] {
  const perMillion = (count: number) => (count / r.events) * 1_000_000;
  const rows: CostRow[] = [];
  const add = (item: string, counted: string, count: number, unitPrice: number) =>
    rows.push({
      item,
      counted,
      perEvent: count / r.events,
      dollars: perMillion(count) * unitPrice,
    });
  add(
    'EventBridge PutEvents (64 KB chunks; only events a rule on the bus matches)',
    `${r.bus.billedChunks} chunks in ${r.bus.putEventsRequests} requests`,
    r.bus.billedChunks,
    PRICES.putEventsPerMillion / 1e6,
  );
  add(
    'EventBridge ListRules (rules listed every 60 s; no charge)',
    `${r.bus.listRulesRequests} requests`,
    r.bus.listRulesRequests,
    0,
  );
  const billed = [...r.sqsBilled.values()].reduce((a, b) => a + b, 0);
  add(
    'SQS requests billed (64 KB chunks): poller SendMessageBatch, dispatcher receive + delete',
    [...r.sqsRequests]
      .map(([name, n]) => `${name} ${n} (billed ${r.sqsBilled.get(name)})`)
      .join(', '),
    billed,
    PRICES.sqsPerMillionRequests / 1e6,
  );
  const writes = r.poller.writeUnits + r.dispatcher.writeUnits;
  add(
    'DynamoDB WRU (poller + dispatcher)',
    `${formatNumber(r.poller.writeUnits, 1)} + ${formatNumber(r.dispatcher.writeUnits, 1)}`,
    writes,
    PRICES.dynamoPerMillionWru / 1e6,
  );
  add(
    'DynamoDB RRU (poller + dispatcher)',
    `${formatNumber(r.poller.readUnits, 1)} + ${formatNumber(r.dispatcher.readUnits, 1)}`,
    r.poller.readUnits + r.dispatcher.readUnits,
    PRICES.dynamoPerMillionRru / 1e6,
  );
  const gbSeconds = r.poller.seconds * POLLER_GB + r.dispatcher.seconds * DISPATCHER_GB;
  add(
    'Lambda GB-s (local wall time)',
    `poller ${formatNumber(r.poller.seconds, 2)} s x ${POLLER_GB} GB, dispatcher ${formatNumber(r.dispatcher.seconds, 2)} s x ${DISPATCHER_GB} GB`,
    gbSeconds,
    PRICES.lambdaArmPerGbSecond,
  );
  const invocations = 1 + r.dispatcher.invocations;
  add(
    'Lambda requests',
    `1 poller + ${r.dispatcher.invocations} dispatcher`,
    invocations,
    PRICES.lambdaPerMillionRequests / 1e6,
  );
  const logBytes = r.logBytes + invocations * LAMBDA_PLATFORM_LOG_BYTES + POLLER_LOG_BYTES_PER_POLL;
  add(
    'CloudWatch Logs (GB)',
    `${formatNumber(logBytes / 1024, 1)} KB`,
    logBytes / GB,
    PRICES.logsPerGb,
  );
  add(
    'Data transfer out (webhook bodies, GB)',
    `${formatNumber(r.transferBytes / 1024, 0)} KB`,
    r.transferBytes / GB,
    PRICES.transferOutPerGb,
  );
  return rows;
}

function total(rows: readonly CostRow[]): number {
  return rows.reduce((sum, row) => sum + row.dollars, 0);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

function printRound(title: string, r: RoundCounts, rows: readonly CostRow[]): void {
  console.log(
    `  ${title}: ${r.events} events, ${r.delivered} webhooks verified (${r.subscribers} subscriber(s)); ` +
      `DynamoDB commands: ${[...r.dynamoCommands].map(([k, v]) => `${k} ${v}`).join(', ')}`,
  );
  console.log(
    indent(
      renderTable(
        ['item', 'counted in this run', 'per event', '$ per million events'],
        [
          ...rows.map((row) => [
            row.item,
            row.counted,
            row.perEvent.toPrecision(3),
            row.dollars.toFixed(3),
          ]),
          ['total', '', '', total(rows).toFixed(2)],
        ],
      ),
    ),
  );
}

async function measureRounds(pipeline: CostPipeline) {
  const headline = await pipeline.round({ changes: CHANGES, subscribers: 1, rules: [] });
  const ruleAll = await pipeline.round({
    changes: SMALL_CHANGES,
    subscribers: 1,
    rules: [RULE_MATCHING_ALL],
  });
  const three = await pipeline.round({ changes: SMALL_CHANGES, subscribers: 3, rules: [] });
  const ten = await pipeline.round({ changes: SMALL_CHANGES, subscribers: 10, rules: [] });
  return { headline, ruleAll, three, ten };
}

/** Idle cost of one property at 1-minute polling: the measured quiet poll job, plus fixed items. */
async function idleProperty(): Promise<{ rows: string[][]; total: number }> {
  const job = await measureQuietJob();
  const pollJob = scaleRow(job, PRICES, 1, 1, POLLER_GB).idleCostPerPropertyMonthUsd;
  const metrics = (job.streams + FIXED_CUSTOM_METRICS) * MONTHLY_PRICES.customMetric;
  const items: Array<[string, number]> = [
    [
      `poll job every minute (measured: ${job.streams} streams, ${formatNumber(job.dynamoWriteUnits, 1)} WRU, ${formatNumber(job.dynamoReadUnits, 1)} RRU, ${formatNumber(job.billedMs)} ms billed; planner, SQS, KMS, logs)`,
      pollJob,
    ],
    ['KMS keys: data key and connection token key (per deployment)', 2 * MONTHLY_PRICES.kmsKey],
    [
      'deployment secret (ClientToken; connection tokens are sealed in the table)',
      MONTHLY_PRICES.secret,
    ],
    [`custom metrics (${job.streams} WatermarkAgeSeconds + ${FIXED_CUSTOM_METRICS})`, metrics],
  ];
  const sum = items.reduce((a, [, dollars]) => a + dollars, 0);
  return {
    rows: [
      ...items.map(([item, dollars]) => [item, `$${dollars.toFixed(2)}`]),
      ['total', `$${sum.toFixed(2)}`],
    ],
    total: sum,
  };
}

/**
 * AWS cost per million change events: the real poller, publisher, SQS and dispatcher with
 * counters on every AWS client (dynalite, the SQS emulator, a stand-in bus answering
 * ListRules and PutEvents), rounds for 1, 3 and 10 subscribers and for a user rule matching
 * every event; then the monthly cost of one idle property at 1-minute polling.
 */
export async function run(): Promise<void> {
  quietAwsSdkNotice();
  console.log('cost (the real publish path: dispatch queue direct, bus only for matching rules)');
  const pipeline = await startCostPipeline();
  let rounds: Awaited<ReturnType<typeof measureRounds>>;
  try {
    rounds = await measureRounds(pipeline);
  } finally {
    await pipeline.close();
  }
  const headlineRows = priceRound(rounds.headline);
  const headline = total(headlineRows);
  printRound('one subscriber, no user rule on the bus', rounds.headline, headlineRows);
  const ruleAllRows = priceRound(rounds.ruleAll);
  printRound('one subscriber, a user rule matching every event', rounds.ruleAll, ruleAllRows);

  const perSubscriber = [rounds.headline, rounds.three, rounds.ten].map((r) => [
    String(r.subscribers),
    `${r.events} events, ${r.delivered} webhooks`,
    `$${total(priceRound(r)).toFixed(2)}`,
  ]);
  console.log('  per million events, by subscribers (no user rule):');
  console.log(indent(renderTable(['subscribers', 'run', '$ per million events'], perSubscriber)));
  const ruleDelta = total(ruleAllRows) - total(priceRound(rounds.headline));
  console.log(
    `  a user rule matching every event (or the archive on) adds about $${ruleDelta.toFixed(2)}/M (PutEvents)`,
  );

  console.log('  one idle property, 1-minute polling, per month:');
  const idle = await idleProperty();
  console.log(indent(renderTable(['item', '$ per month'], idle.rows)));

  const allDelivered = [rounds.headline, rounds.ruleAll, rounds.three, rounds.ten].every(
    (r) => r.delivered === r.events * r.subscribers,
  );
  recordFigure({
    figure: 'AWS cost per million events, one subscriber',
    measured: `$${headline.toFixed(2)}`,
    target: '<= $3.00',
    met: headline <= 3 && allDelivered,
  });
  recordFigure({
    figure: 'Fixed monthly cost of one idle property, 1-minute polling',
    measured: `$${idle.total.toFixed(2)}`,
    target: '(information)',
    met: undefined,
  });
}

if (isMain(import.meta.url)) await run();
