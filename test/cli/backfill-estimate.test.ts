import { describe, expect, it } from 'vitest';
import { jobEstimator, readEstimator } from '../../shared/cli/admin/backfill-estimate.ts';

const part = (fraction: number, recordsRead: number, done = false) => ({
  fraction,
  recordsRead,
  done,
  parked: false,
});

describe('the reading estimate', () => {
  it('says unknown, not 80 %, while an empty stretch of history goes by with no record read', () => {
    const read = readEstimator();
    expect(read(0, part(0, 0))).toEqual({ fraction: null, secondsLeft: null });
    expect(read(1_000, part(0.4, 0))).toEqual({ fraction: null, secondsLeft: null });
    expect(read(2_000, part(0.8, 0))).toEqual({ fraction: null, secondsLeft: null });
    // Records come, the window holding them stands still: still no density to measure.
    expect(read(3_000, part(0.8, 5_000))).toEqual({ fraction: null, secondsLeft: null });
  });

  it('says unknown when the last empty windows and the first records come in one interval', () => {
    const read = readEstimator();
    read(0, part(0.55, 0));
    // Most of the 0.25 the range moved was empty: 500 records over it foretell nothing.
    expect(read(1_000, part(0.8, 500))).toEqual({ fraction: null, secondsLeft: null });
    expect(read(2_000, part(0.8, 3_000))).toEqual({ fraction: null, secondsLeft: null });
  });

  it('measures records read against those the rest of the range will hold, between window ends', () => {
    const read = readEstimator();
    read(0, part(0.8, 0));
    read(2_000, part(0.85, 20_000));
    // The window from 0.85 to 0.9 held 25,000 records: the 0.1 left holds 50,000.
    const estimate = read(6_000, part(0.9, 45_000));
    expect(estimate.fraction).toBeCloseTo(45_000 / 95_000, 5);
    // 50,000 records left at 45,000 read in 6 s.
    expect(estimate.secondsLeft).toBe(7);
  });

  it('says done once the part is', () => {
    const read = readEstimator();
    read(0, part(0.8, 0));
    expect(read(1_000, part(1, 100, true))).toEqual({ fraction: 1, secondsLeft: 0 });
  });
});

describe('the job estimate', () => {
  const figures = (published: number, delivered: number, left: number) => ({
    eventsPublished: published,
    webhooksDelivered: delivered,
    webhooksDeadLettered: 0,
    webhooksLeft: left,
    eventsQueued: 0,
  });

  it('is estimating while the first empty stretch goes by, then the larger of reading and delivering', () => {
    const estimate = jobEstimator();
    const at = (s: number) => s * 1_000;
    const key = 'main:customer';
    const first = estimate(at(0), [{ key, ...part(0.8, 0) }], figures(0, 0, 0), false);
    expect(first.secondsLeft).toBeNull();
    expect(first.fraction).toBeNull();
    const second = estimate(
      at(2),
      [{ key, ...part(0.85, 20_000) }],
      figures(20_000, 5_000, 15_000),
      false,
    );
    expect(second.secondsLeft).toBeNull();
    // Reading: 50,000 records at 45,000 in 6 s, 7 s. Delivering: 36,000 pending and the
    // 52,500 events those 7 s publish at 7,500/s, at 9,000 delivered in 6 s: 59 s.
    const later = estimate(
      at(6),
      [{ key, ...part(0.9, 45_000) }],
      figures(45_000, 9_000, 36_000),
      false,
    );
    expect(later.readSecondsLeft).toBe(7);
    expect(later.deliverySecondsLeft).toBe(59);
    expect(later.secondsLeft).toBe(59);
    // Of all the work, the deliveries are the least done.
    expect(later.fraction).toBeCloseTo(9_000 / (45_000 + 7_500 * 7), 3);
  });

  it('counts the backlog of undelivered events once the reading ended, not 0 s', () => {
    const estimate = jobEstimator();
    const key = 'main:customer';
    estimate(0, [{ key, ...part(0.8, 0) }], figures(0, 0, 0), false);
    const ended = estimate(
      10_000,
      [{ key, ...part(1, 100_000, true) }],
      figures(100_000, 50_000, 50_000),
      true,
      200,
    );
    expect(ended.readSecondsLeft).toBe(0);
    expect(ended.deliverySecondsLeft).toBe(200);
    expect(ended.secondsLeft).toBe(200);
    expect(ended.fraction).toBeCloseTo(0.5, 5);
  });
});
