import { describe, expect, it } from 'vitest';
import { PRICES } from '../../bench/prices.ts';
import {
  CONNECTION_ITEM_BYTES,
  ESM_IDLE_RECEIVES_PER_MINUTE,
  type JobCounts,
  PLANNER_MS_PER_QUERY_PAGE,
  PLANNER_MS_PER_SEND_ROUND,
  plannerRun,
  scaleRow,
} from '../../bench/scale-arithmetic.ts';
import { PLANNER_PAGE_CONNECTIONS } from '../../shared/polling/plan-connections.ts';

const QUIET_JOB: JobCounts = {
  streams: 13,
  connectorRequests: 15,
  dynamoReadUnits: 10,
  dynamoWriteUnits: 5,
  billedMs: 1_200,
  logBytes: 12_000,
};

describe('scaleRow', () => {
  it('makes one poll job per connection per tick, spread over the interval', () => {
    expect(scaleRow(QUIET_JOB, PRICES, 1_000, 1).jobsPerMinute).toBe(1_000);
    expect(scaleRow(QUIET_JOB, PRICES, 1_000, 5).jobsPerMinute).toBe(200);
  });

  it('sends, receives and deletes jobs in SQS batches of 10 on top of the idle long polls', () => {
    expect(scaleRow(QUIET_JOB, PRICES, 1_000, 1).sqsRequestsPerMinute).toBe(3 * 100 + 15);
  });

  it('derives mean Lambda concurrency from jobs per second times billed duration', () => {
    expect(scaleRow(QUIET_JOB, PRICES, 10_000, 1).meanConcurrency).toBeCloseTo(200);
  });

  it('names Lambda concurrency first when jobs are long and DynamoDB units few', () => {
    const slow = { ...QUIET_JOB, billedMs: 10_000, dynamoReadUnits: 1, dynamoWriteUnits: 1 };
    const row = scaleRow(slow, PRICES, 10_000, 1);
    expect(row.firstQuota.name).toBe('Lambda concurrent executions');
    expect(row.firstQuota.usedShare).toBeGreaterThan(1);
  });

  it('reads every connection once a run by page of the planner, each page billed by the 4 KB it returns', () => {
    // Eventually consistent: 0.5 RRU per 4 KB of the page's items, rounded up per request.
    const pageUnits = (items: number) => Math.ceil((items * CONNECTION_ITEM_BYTES) / 4_096) / 2;
    expect(plannerRun(1).readUnits).toBe(pageUnits(1));
    expect(plannerRun(PLANNER_PAGE_CONNECTIONS + 1).readUnits).toBe(
      pageUnits(PLANNER_PAGE_CONNECTIONS) + pageUnits(1),
    );
    const noReads = { ...QUIET_JOB, dynamoReadUnits: 0 };
    const oneMinute = scaleRow(noReads, PRICES, 1_000, 1).dynamoReadUnitsPerSecond * 60;
    expect(oneMinute).toBeCloseTo(plannerRun(1_000).readUnits);
    // One run every 5 minutes reads the same connections: a fifth of it a minute.
    const fiveMinutes = scaleRow(noReads, PRICES, 1_000, 5).dynamoReadUnitsPerSecond * 60;
    expect(fiveMinutes).toBeCloseTo(plannerRun(1_000).readUnits / 5);
  });

  it('bills a planner run by its pages and its rounds of ten SendMessageBatch at once', () => {
    const run = plannerRun(PLANNER_PAGE_CONNECTIONS * 2 + 1);
    expect(run.pages).toBe(3);
    expect(run.sendBatches).toBe(Math.ceil((PLANNER_PAGE_CONNECTIONS * 2 + 1) / 10));
    expect(run.billedMs).toBe(
      3 * PLANNER_MS_PER_QUERY_PAGE + Math.ceil(run.sendBatches / 10) * PLANNER_MS_PER_SEND_ROUND,
    );
  });

  it('runs the planner once per polling interval, not every minute', () => {
    expect(scaleRow(QUIET_JOB, PRICES, 1, 5).lambdaInvocationsPerMinute).toBeCloseTo(0.2 + 0.2);
    expect(scaleRow(QUIET_JOB, PRICES, 1_000, 5).lambdaInvocationsPerMinute).toBeCloseTo(200 + 0.2);
    // Its one batch a run: send, receive and delete every 5 minutes.
    expect(scaleRow(QUIET_JOB, PRICES, 1, 5).sqsRequestsPerMinute).toBeCloseTo(
      (3 * 1) / 5 + ESM_IDLE_RECEIVES_PER_MINUTE,
    );
  });

  it("bills the planner at the planner's memory, whatever the poller's", () => {
    const cost = (pollerGb: number) =>
      scaleRow(QUIET_JOB, PRICES, 1, 1, pollerGb).idleCostPerPropertyMonthUsd;
    // Only the poll job's GB-seconds follow the poller's memory.
    const jobGbSecondsPerMonth = (QUIET_JOB.billedMs / 1000) * 730 * 60;
    expect(cost(2) - cost(1)).toBeCloseTo(jobGbSecondsPerMonth * PRICES.lambdaArmPerGbSecond, 6);
  });

  it('spreads the fixed costs, so the idle cost per property falls as properties grow', () => {
    const one = scaleRow(QUIET_JOB, PRICES, 1, 1).idleCostPerPropertyMonthUsd;
    const many = scaleRow(QUIET_JOB, PRICES, 10_000, 1).idleCostPerPropertyMonthUsd;
    expect(many).toBeLessThan(one);
    expect(scaleRow(QUIET_JOB, PRICES, 10_000, 5).idleCostPerPropertyMonthUsd).toBeLessThan(many);
  });
});
