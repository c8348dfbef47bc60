import { describe, expect, it } from 'vitest';
import { PRICES } from '../../bench/prices.ts';
import { type JobCounts, scaleRow } from '../../bench/scale-arithmetic.ts';

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

  it('adds the planner reading due connections by page of 100 to the read units', () => {
    const noReads = { ...QUIET_JOB, dynamoReadUnits: 0 };
    // 10 pages of 100 items of 1 KB, eventually consistent: 0.5 RRU per 4 KB.
    expect(scaleRow(noReads, PRICES, 1_000, 1).dynamoReadUnitsPerSecond * 60).toBeCloseTo(125);
  });

  it('spreads the fixed costs, so the idle cost per property falls as properties grow', () => {
    const one = scaleRow(QUIET_JOB, PRICES, 1, 1).idleCostPerPropertyMonthUsd;
    const many = scaleRow(QUIET_JOB, PRICES, 10_000, 1).idleCostPerPropertyMonthUsd;
    expect(many).toBeLessThan(one);
    expect(scaleRow(QUIET_JOB, PRICES, 10_000, 5).idleCostPerPropertyMonthUsd).toBeLessThan(many);
  });
});
