import { describe, expect, it } from 'vitest';
import { BackfillEstimates, type JobReading } from '../../shared/admin/backfill-estimates.ts';

const reading = (readAt: number, recordsRead: number): JobReading => ({
  jobId: 'bf_1',
  startedAt: 0,
  readAt,
  parts: [
    {
      key: 'main:customer',
      fraction: 0.9,
      recordsRead,
      done: false,
      parked: false,
      recordsGuess: 10_000,
    },
  ],
  figures: {
    eventsPublished: 0,
    recordsRead,
    webhooksDelivered: 0,
    webhooksDeadLettered: 0,
    webhooksLeft: 0,
    eventsQueued: 0,
  },
  readDone: false,
});

describe("the bridge's estimates of its backfill jobs", () => {
  it('measures the rate from the job start on its first reading', () => {
    const estimates = new BackfillEstimates();
    // 2,000 records in the 10 s since the start: 8,000 left take 40 s.
    expect(estimates.estimate(reading(10_000, 2_000)).readSecondsLeft).toBe(40);
  });

  it('answers a reading reused from the sources cache with the estimate it gave, not another sample', () => {
    const estimates = new BackfillEstimates();
    const first = estimates.estimate(reading(10_000, 2_000));
    // The same estimate: a job of 6,500 streams is not estimated again at every answer.
    expect(estimates.estimate(reading(10_000, 2_000))).toBe(first);
    // A new reading is a new sample: 2,000 more in 10 s.
    expect(estimates.estimate(reading(20_000, 4_000)).readSecondsLeft).toBe(30);
  });
});
