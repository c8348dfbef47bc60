import { z } from 'zod';

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
/** The planner reads due connections by page of this many items. */
export const PLANNER_PAGE_CONNECTIONS = 100;
/** Size of a connection item the planner reads (id, scope, streams, encrypted token): an estimate. */
export const CONNECTION_ITEM_BYTES = 1_024;
/** The SQS event source mapping keeps about 5 pollers long-polling (20 s) while idle. */
export const ESM_IDLE_RECEIVES_PER_MINUTE = 15;
/** Planner invocations per minute (one scheduled tick). */
export const PLANNER_TICKS_PER_MINUTE = 1;
/** Planner billed duration per page of connections (estimate: one Query and 10 SendMessageBatch). */
export const PLANNER_MS_PER_PAGE = 150;
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

/**
 * Scales one job's measured counts to `properties` connections polled every
 * `intervalMinutes`, with one poll job per connection per tick (issue 15): the planner
 * reads due connections by page of 100 and sends SQS batches of 10; each job is one poller
 * invocation with one KMS Decrypt of its data key. Pure: no clock, no I/O.
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
  const plannerPages = Math.max(1, Math.ceil(jobsPerMinute / PLANNER_PAGE_CONNECTIONS));
  const batches = Math.ceil(jobsPerMinute / SQS_BATCH_MAX_MESSAGES);
  // Send, receive and delete one batch each; the mapping's idle long polls come on top.
  const sqsRequestsPerMinute = 3 * batches + ESM_IDLE_RECEIVES_PER_MINUTE;
  const lambdaInvocationsPerMinute = jobsPerMinute + PLANNER_TICKS_PER_MINUTE;
  // The planner delays each job to its slot, so jobs spread over the interval (Little's law).
  const meanConcurrency = (jobsPerMinute * counts.billedMs) / 60_000;
  // Eventually consistent Query: 0.5 RRU per 4 KB read.
  const plannerReadUnits =
    (plannerPages * PLANNER_PAGE_CONNECTIONS * CONNECTION_ITEM_BYTES) / 4_096 / 2;
  const readUnitsPerMinute = jobsPerMinute * counts.dynamoReadUnits + plannerReadUnits;
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
    ((plannerPages * PLANNER_MS_PER_PAGE) / 1000) * pollerGb;
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
