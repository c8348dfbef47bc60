import { z } from 'zod';
import { POLL_JOB_SEND_CONCURRENCY } from '../shared/polling/enqueue-poll-jobs.ts';
import { PLANNER_PAGE_CONNECTIONS } from '../shared/polling/plan-connections.ts';
import { PLANNER_GB } from './prices.ts';

/** What one poll job (one connection, every stream, one tick) costs, as measured. */
export const JobCountsSchema = z.strictObject({
  streams: z.number().int().positive(),
  connectorRequests: z.number().min(0),
  dynamoReadUnits: z.number().min(0),
  dynamoWriteUnits: z.number().min(0),
  /** Billed duration of the poller invocation that runs the job. */
  billedMs: z.number().positive(),
  logBytes: z.number().min(0),
});
export type JobCounts = z.infer<typeof JobCountsSchema>;

/** Prices the model needs (bench/prices.ts gives them). */
export const ScalePricesSchema = z.strictObject({
  lambdaArmPerGbSecond: z.number(),
  lambdaPerMillionRequests: z.number(),
  sqsPerMillionRequests: z.number(),
  dynamoPerMillionRru: z.number(),
  dynamoPerMillionWru: z.number(),
  kmsPer10kRequests: z.number(),
  logsPerGb: z.number(),
});
export type ScalePrices = z.infer<typeof ScalePricesSchema>;

/** One row of the scale model: a deployment size at a polling interval. */
export interface ScaleRow {
  properties: number;
  intervalMinutes: number;
  jobsPerMinute: number;
  lambdaInvocationsPerMinute: number;
  meanConcurrency: number;
  sqsRequestsPerMinute: number;
  dynamoReadUnitsPerSecond: number;
  dynamoWriteUnitsPerSecond: number;
  firstQuota: { name: string; defaultValue: string; usedShare: number };
  idleCostPerPropertyMonthUsd: number;
}

/** SQS SendMessageBatch and the event source mapping's batch: 10 messages at most. */
export const SQS_BATCH_MAX_MESSAGES = 10;
/** Size of a connection item the planner reads (id, scope, streams, encrypted token): an estimate. */
export const CONNECTION_ITEM_BYTES = 1_024;
/** The SQS event source mapping keeps about 5 pollers long-polling (20 s) while idle. */
export const ESM_IDLE_RECEIVES_PER_MINUTE = 15;
/** Billed time of one page the planner reads (estimate: one Query of up to 500 items of 1 KB). */
export const PLANNER_MS_PER_QUERY_PAGE = 100;
/** Billed time of one round of SendMessageBatch calls, ten at once (estimate: one round trip). */
export const PLANNER_MS_PER_SEND_ROUND = 20;
const MINUTES_PER_MONTH = 730 * 60;
const GB = 1024 ** 3;

/** AWS defaults per account and region (Service Quotas console; us-east-1). */
export const AWS_QUOTAS = [
  {
    name: 'Lambda concurrent executions',
    defaultValue: '1,000',
    limit: 1_000,
    of: (r: Demand) => r.concurrency,
  },
  {
    name: 'DynamoDB on-demand table read throughput',
    defaultValue: '40,000 RRU/s',
    limit: 40_000,
    of: (r: Demand) => r.readUnitsPerSecond,
  },
  {
    name: 'DynamoDB on-demand table write throughput',
    defaultValue: '40,000 WRU/s',
    limit: 40_000,
    of: (r: Demand) => r.writeUnitsPerSecond,
  },
  {
    name: 'KMS symmetric cryptographic requests',
    defaultValue: '100,000/s (us-east-1)',
    limit: 100_000,
    of: (r: Demand) => r.invocationsPerSecond,
  },
  {
    name: 'Lambda invocation requests (10 x concurrency)',
    defaultValue: '10,000/s',
    limit: 10_000,
    of: (r: Demand) => r.invocationsPerSecond,
  },
  // Standard queues: nearly unlimited API calls per second; SendMessageBatch counts once.
  {
    name: 'SQS standard queue API requests',
    defaultValue: 'nearly unlimited',
    limit: Number.POSITIVE_INFINITY,
    of: (r: Demand) => r.sqsPerSecond,
  },
] as const;

interface Demand {
  concurrency: number;
  readUnitsPerSecond: number;
  writeUnitsPerSecond: number;
  invocationsPerSecond: number;
  sqsPerSecond: number;
}

/** What one planner run costs: it reads every connection and enqueues one job per due one. */
export interface PlannerRun {
  /** Query pages of the connection store ({@link PLANNER_PAGE_CONNECTIONS} items each). */
  pages: number;
  /** Read units of those pages: eventually consistent, 0.5 per 4 KB each page returns. */
  readUnits: number;
  /** SendMessageBatch calls of up to 10 jobs. */
  sendBatches: number;
  /** Billed duration: the pages one after the other, then the batches ten at a time. */
  billedMs: number;
}

/**
 * One planner run over `connections` connections, each due (one poll job per connection per
 * tick): a Query is billed by the bytes it returns rounded up to 4 KB, so a page of one item
 * costs 0.5 RRU, not a full page's. Pure.
 * @example plannerRun(1).readUnits // 0.5
 */
export function plannerRun(connections: number): PlannerRun {
  const fullPages = Math.floor(connections / PLANNER_PAGE_CONNECTIONS);
  const lastPage = connections - fullPages * PLANNER_PAGE_CONNECTIONS;
  // At least 0.5 RRU a Query, an empty one included.
  const pageUnits = (items: number) =>
    Math.max(1, Math.ceil((items * CONNECTION_ITEM_BYTES) / 4_096)) / 2;
  const pages = Math.max(1, Math.ceil(connections / PLANNER_PAGE_CONNECTIONS));
  const sendBatches = Math.ceil(connections / SQS_BATCH_MAX_MESSAGES);
  const sendRounds = Math.ceil(sendBatches / POLL_JOB_SEND_CONCURRENCY);
  return {
    pages,
    readUnits:
      fullPages * pageUnits(PLANNER_PAGE_CONNECTIONS) +
      (lastPage > 0 || fullPages === 0 ? pageUnits(lastPage) : 0),
    sendBatches,
    billedMs: pages * PLANNER_MS_PER_QUERY_PAGE + sendRounds * PLANNER_MS_PER_SEND_ROUND,
  };
}

/**
 * Scales one job's measured counts to `properties` connections polled every
 * `intervalMinutes`, with one poll job per connection per tick (issue 15): the planner runs
 * once per interval (its schedule is the polling rate), reads every connection by page of
 * {@link PLANNER_PAGE_CONNECTIONS} and sends SQS batches of 10 (see {@link plannerRun}), at its
 * own memory ({@link PLANNER_GB}); each job is one poller invocation with one KMS Decrypt of its
 * data key. Pure: no clock, no I/O.
 * @example scaleRow(counts, PRICES, 1_000, 1).meanConcurrency
 */
export function scaleRow(
  counts: JobCounts,
  prices: ScalePrices,
  properties: number,
  intervalMinutes: number,
  pollerGb = 1,
): ScaleRow {
  const jobsPerMinute = properties / intervalMinutes;
  const runsPerMinute = 1 / intervalMinutes;
  const planner = plannerRun(properties);
  // Send, receive and delete one batch each; the mapping's idle long polls come on top.
  const sqsRequestsPerMinute =
    3 * planner.sendBatches * runsPerMinute + ESM_IDLE_RECEIVES_PER_MINUTE;
  const lambdaInvocationsPerMinute = jobsPerMinute + runsPerMinute;
  // The planner delays each job to its slot, so jobs spread over the interval (Little's law).
  const meanConcurrency = (jobsPerMinute * counts.billedMs) / 60_000;
  const readUnitsPerMinute =
    jobsPerMinute * counts.dynamoReadUnits + planner.readUnits * runsPerMinute;
  const writeUnitsPerMinute = jobsPerMinute * counts.dynamoWriteUnits;
  const demand: Demand = {
    concurrency: meanConcurrency,
    readUnitsPerSecond: readUnitsPerMinute / 60,
    writeUnitsPerSecond: writeUnitsPerMinute / 60,
    invocationsPerSecond: lambdaInvocationsPerMinute / 60,
    sqsPerSecond: sqsRequestsPerMinute / 60,
  };
  const quotas = AWS_QUOTAS.map((q) => ({
    name: q.name,
    defaultValue: q.defaultValue,
    usedShare: q.of(demand) / q.limit,
  }));
  const firstQuota = quotas.reduce((a, b) => (b.usedShare > a.usedShare ? b : a));
  const gbSeconds =
    jobsPerMinute * (counts.billedMs / 1000) * pollerGb +
    (planner.billedMs / 1000) * runsPerMinute * PLANNER_GB;
  const costPerMinute =
    gbSeconds * prices.lambdaArmPerGbSecond +
    (lambdaInvocationsPerMinute / 1e6) * prices.lambdaPerMillionRequests +
    (sqsRequestsPerMinute / 1e6) * prices.sqsPerMillionRequests +
    (readUnitsPerMinute / 1e6) * prices.dynamoPerMillionRru +
    (writeUnitsPerMinute / 1e6) * prices.dynamoPerMillionWru +
    (jobsPerMinute / 1e4) * prices.kmsPer10kRequests +
    ((jobsPerMinute * counts.logBytes) / GB) * prices.logsPerGb;
  return {
    properties,
    intervalMinutes,
    jobsPerMinute,
    lambdaInvocationsPerMinute,
    meanConcurrency,
    sqsRequestsPerMinute,
    dynamoReadUnitsPerSecond: demand.readUnitsPerSecond,
    dynamoWriteUnitsPerSecond: demand.writeUnitsPerSecond,
    firstQuota,
    idleCostPerPropertyMonthUsd: (costPerMinute * MINUTES_PER_MONTH) / properties,
  };
}
