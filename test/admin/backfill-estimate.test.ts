import { describe, expect, it } from 'vitest';
import { jobEstimator } from '../../shared/admin/backfill-estimate.ts';
import { readEstimator } from '../../shared/admin/backfill-read-estimate.ts';

const part = (fraction: number, recordsRead: number, done = false) => ({
  fraction,
  recordsRead,
  done,
  parked: false,
});

const UNKNOWN = { fraction: null, secondsLeft: null, recordsExpected: null };

describe('the reading estimate', () => {
  it('says unknown, not 80 %, while an empty stretch of history goes by with no record read', () => {
    const read = readEstimator();
    expect(read(0, part(0, 0))).toEqual(UNKNOWN);
    expect(read(1_000, part(0.4, 0))).toEqual(UNKNOWN);
    expect(read(2_000, part(0.8, 0))).toEqual(UNKNOWN);
    // Records come, the window holding them stands still: still no density to measure.
    expect(read(3_000, part(0.8, 5_000))).toEqual(UNKNOWN);
  });

  it('says unknown when the last empty windows and the first records come in one interval', () => {
    const read = readEstimator();
    read(0, part(0.55, 0));
    // Most of the 0.25 the range moved was empty: 500 records over it foretell nothing.
    expect(read(1_000, part(0.8, 500))).toEqual(UNKNOWN);
    expect(read(2_000, part(0.8, 3_000))).toEqual(UNKNOWN);
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
    expect(read(1_000, part(1, 100, true))).toEqual({
      fraction: 1,
      secondsLeft: 0,
      recordsExpected: 100,
    });
  });
});

describe('the job estimate', () => {
  const figures = (published: number, delivered: number, left: number) => ({
    eventsPublished: published,
    recordsRead: published,
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
    // 50,000 events those records publish (one each so far): 10,500 in the 7 s of reading at
    // 9,000 delivered in 6 s, the 75,500 left then at √(1,500 × 7,500) ≈ 3,354 a second (the
    // deliveries take what the reading, making 7,500 a second, took): 23 s more, 30 s (58 s at
    // the rate seen while reading).
    const later = estimate(
      at(6),
      [{ key, ...part(0.9, 45_000) }],
      figures(45_000, 9_000, 36_000),
      false,
    );
    expect(later.readSecondsLeft).toBe(7);
    expect(later.deliveryRateAfterRead).toBeCloseTo(Math.sqrt(1_500 * 7_500), 5);
    expect(later.deliverySecondsLeft).toBe(30);
    expect(later.secondsLeft).toBe(30);
    // Of all the work, the deliveries are the least done.
    expect(later.fraction).toBeCloseTo(9_000 / (9_000 + 36_000 + 50_000), 3);
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

  it('counts the webhooks left at the rate since the reading ended, not the rate while it read', () => {
    // `change-bridge start` delivers little of a backfill while its reading has pages in hand.
    const estimate = jobEstimator();
    const key = 'main:customer';
    estimate(0, [{ key, ...part(0.8, 0) }], figures(0, 0, 0), false);
    estimate(10_000, [{ key, ...part(0.99, 90_000) }], figures(90_000, 1_000, 89_000), false);
    const done = [{ key, ...part(1, 100_000, true) }];
    // Just ended: no rate of its own yet, the recent one (100 a second) stands in.
    const ended = estimate(11_000, done, figures(100_000, 1_100, 98_900), true);
    expect(ended.deliverySecondsLeft).toBe(989);
    // 3,200 delivered in the 2 s since: the 95,700 left take 60 s, not 9 minutes.
    const since = estimate(13_000, done, figures(100_000, 4_300, 95_700), true);
    expect(since.deliverySecondsLeft).toBe(60);
  });
});

describe('the estimate before a density is measured', () => {
  it("takes a pass's records at its first sync for the records it reads, while fewer are read", () => {
    const read = readEstimator(0);
    // 80 % of the range went by empty, and no window with records has ended yet.
    const early = read(10_000, { ...part(0.8, 20_000), recordsGuess: 100_000 });
    expect(early.fraction).toBeCloseTo(0.2, 5);
    expect(early.recordsExpected).toBe(100_000);
    // 80,000 left at 20,000 read in the 10 s since the job started.
    expect(early.secondsLeft).toBe(40);
    // More read than the guess: it no longer tells anything.
    expect(read(20_000, { ...part(0.8, 120_000), recordsGuess: 100_000 })).toEqual(UNKNOWN);
  });

  it('takes the guess again while a window holds more records than the density foretold', () => {
    const read = readEstimator(0);
    const guess = { recordsGuess: 100_000 };
    read(0, { ...part(0.8, 0), ...guess });
    read(2_000, { ...part(0.85, 20_000), ...guess });
    // 25,000 in 0.05 of the range: the 0.1 left holds 50,000, 95,000 in all.
    expect(read(6_000, { ...part(0.9, 45_000), ...guess }).recordsExpected).toBe(95_000);
    // The next window holds more: 96,000 read, more than that density foretold.
    const denser = read(10_000, { ...part(0.9, 96_000), ...guess });
    expect(denser.recordsExpected).toBe(100_000);
    expect(denser.fraction).toBeCloseTo(0.96, 5);
    // Without a guess, the reading is nearly done as far as the density tells, at no known time.
    const unguessed = readEstimator(0);
    unguessed(0, part(0.8, 0));
    unguessed(2_000, part(0.85, 20_000));
    unguessed(6_000, part(0.9, 45_000));
    expect(unguessed(10_000, part(0.9, 96_000))).toMatchObject({
      fraction: 0.99,
      secondsLeft: null,
    });
  });

  it('measures rates from the origin given, so one sample tells a time', () => {
    const read = readEstimator(0);
    expect(read(4_000, { ...part(0.5, 1_000), recordsGuess: 3_000 }).secondsLeft).toBe(8);
    // Without an origin one sample is no rate.
    expect(readEstimator()(4_000, { ...part(0.5, 1_000), recordsGuess: 3_000 }).secondsLeft).toBe(
      null,
    );
  });
});

describe('the delivery estimate', () => {
  const key = 'main:customer';
  const guessed = (recordsRead: number) => ({
    key,
    ...part(0.9, recordsRead),
    recordsGuess: 10_000,
  });

  it('counts the webhooks of every subscription an event goes to, queued and still to read', () => {
    const estimate = jobEstimator({ origin: 0 });
    const sample = {
      eventsPublished: 4_000,
      recordsRead: 4_000,
      webhooksDelivered: 2_000,
      webhooksDeadLettered: 0,
      webhooksLeft: 1_000,
      eventsQueued: 1_000,
    };
    const one = estimate(10_000, [guessed(4_000)], sample, false);
    // 1,000 left, 1,000 queued and 6,000 records to read (15 s at 400 a second): 3,000 while
    // reading at 200 delivered a second, the 5,000 left then at √(200 × 400) ≈ 283 a second.
    expect(one.deliverySecondsLeft).toBe(15 + 18);
    const three = jobEstimator({ origin: 0 })(
      10_000,
      [guessed(4_000)],
      { ...sample, webhooksPerEvent: 3 },
      false,
    );
    // Three subscriptions take each event: 1,000 + 3 × 1,000 + 3 × 6,000 webhooks, 3,000 while
    // reading, the 19,000 left then at √(200 × 1,200) ≈ 490 a second (the reading makes 1,200).
    expect(three.deliverySecondsLeft).toBe(15 + 39);
    expect(three.secondsLeft).toBe(15 + 39);
    expect(three.fraction).toBeCloseTo(2_000 / (2_000 + 1_000 + 3_000 + 18_000), 5);
  });

  it('tells no delivery time before a record is read: how many events records make is unknown', () => {
    const estimate = jobEstimator({ origin: 0 });
    const none = estimate(
      5_000,
      [guessed(0)],
      {
        eventsPublished: 0,
        recordsRead: 0,
        webhooksDelivered: 0,
        webhooksDeadLettered: 0,
        webhooksLeft: 0,
        eventsQueued: 0,
      },
      false,
    );
    expect(none).toMatchObject({ deliverySecondsLeft: null, secondsLeft: null });
  });

  it('says nothing is left to deliver when no subscription takes the events', () => {
    const estimate = jobEstimator({ origin: 0 });
    const done = estimate(
      10_000,
      [guessed(4_000)],
      {
        eventsPublished: 4_000,
        recordsRead: 4_000,
        webhooksDelivered: 0,
        webhooksDeadLettered: 0,
        webhooksLeft: 0,
        eventsQueued: 0,
        webhooksPerEvent: 0,
      },
      false,
    );
    expect(done.deliverySecondsLeft).toBe(0);
    // The reading alone: 6,000 records at 400 a second.
    expect(done.secondsLeft).toBe(15);
  });
});
