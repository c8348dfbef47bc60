import { describe, expect, it } from 'vitest';
import { type JobEstimate, jobEstimator } from '../../shared/admin/backfill-estimate.ts';
import {
  WALK_DELIVERED_AT_MS,
  WALK_RECORDS_AT_FIRST_SYNC,
  WALK_SAMPLES,
} from './support/backfill-walk-100k.ts';

/** The seconds into the job a user looks at the time left. */
const LOOKS_S = [15, 30, 45, 60];

interface Look {
  second: number;
  truth: number;
  shown: number | null;
  before: number | null;
}

/** How far off an estimate is, as a factor either way (1 is right). */
const factorOff = (estimate: number, truth: number) => Math.max(estimate / truth, truth / estimate);

/** Replays the recorded samples through a fresh estimator, as `backfill` does, keeping each look's first sample. */
function replay(): { looks: Look[]; estimates: { at: number; estimate: JobEstimate }[] } {
  const estimate = jobEstimator();
  const looks: Look[] = [];
  const estimates: { at: number; estimate: JobEstimate }[] = [];
  for (const [
    at,
    fraction,
    recordsRead,
    published,
    delivered,
    left,
    queued,
    before,
  ] of WALK_SAMPLES) {
    const result = estimate(
      at,
      [
        {
          key: 'local:customer',
          fraction,
          recordsRead,
          done: false,
          parked: false,
          recordsGuess: WALK_RECORDS_AT_FIRST_SYNC,
        },
      ],
      {
        eventsPublished: published,
        recordsRead,
        webhooksDelivered: delivered,
        webhooksDeadLettered: 0,
        webhooksLeft: left,
        eventsQueued: queued,
        webhooksPerEvent: 1,
      },
      false,
    );
    estimates.push({ at, estimate: result });
    const second = LOOKS_S[looks.length];
    if (second !== undefined && at >= second * 1_000) {
      looks.push({
        second,
        truth: (WALK_DELIVERED_AT_MS - at) / 1_000,
        shown: result.secondsLeft,
        before,
      });
    }
  }
  return { looks, estimates };
}

describe('the time left of a 100,000-customer --emit backfill, replayed from a walk', () => {
  it('is within 1.4 times the time actually left at 15, 30, 45 and 60 s, where it was 2.6 to 3.7 times', () => {
    const { looks } = replay();
    expect(looks.map((look) => look.second)).toEqual(LOOKS_S);
    for (const look of looks) {
      expect(look.shown).not.toBeNull();
      expect(look.before).not.toBeNull();
      const now = factorOff(look.shown ?? 0, look.truth);
      const then = factorOff(look.before ?? 0, look.truth);
      expect(then).toBeGreaterThan(2.5);
      expect(now).toBeLessThan(1.4);
      expect(now).toBeLessThan(then);
    }
  });

  it('expects the deliveries to reach more than the rate seen while the reading runs unpaced', () => {
    const { estimates } = replay();
    const known = estimates.filter(
      ({ at, estimate }) => at >= 15_000 && estimate.secondsLeft !== null,
    );
    expect(known.length).toBeGreaterThan(20);
    for (const { estimate } of known) {
      // About 90 delivered a second while about 800 records are read; about 300 came later.
      expect(estimate.deliveryRateAfterRead).toBeGreaterThan(150);
      expect(estimate.deliveryRateAfterRead).toBeLessThan(500);
    }
  });

  it('shrinks from 15 s to 60 s, rising by at most a tenth between samples', () => {
    const { estimates } = replay();
    const shown = estimates
      .filter(({ at }) => at >= 15_000 && at <= 60_000)
      .map(({ estimate }) => estimate.secondsLeft ?? Number.NaN);
    expect(shown.at(-1)).toBeLessThan((shown[0] ?? 0) * 0.8);
    for (let i = 1; i < shown.length; i++) {
      expect(shown[i]).toBeLessThanOrEqual((shown[i - 1] ?? 0) * 1.1);
    }
  });
});
