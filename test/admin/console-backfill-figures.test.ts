import { describe, expect, it } from 'vitest';
import {
  backfillPercent,
  backfillStanding,
  streamCountsLine,
} from '../../shared/admin/console/backfill-figures.js';

describe("the console's figures of a backfill job", () => {
  it('says whether it is reading, delivering what it read, or done', () => {
    expect(backfillStanding({ done: false, deliveryDone: false, etaSeconds: 12 })).toBe(
      'reading, about 12 s left',
    );
    expect(backfillStanding({ done: false, deliveryDone: false, etaSeconds: null })).toBe(
      'reading, estimating the time left',
    );
    // The events queued are still to be delivered as webhooks: counted in what is left.
    expect(
      backfillStanding({
        done: true,
        deliveryDone: false,
        webhooksLeft: 0,
        eventsQueued: 38_819,
        webhooksToDeliver: 77_638,
        etaSeconds: 9,
      }),
    ).toBe(
      'read done, about 77,638 webhooks left to deliver, counting those of 38,819 queued events, about 9 s left',
    );
    expect(
      backfillStanding({ done: true, deliveryDone: false, webhooksLeft: 1, eventsQueued: 1 }),
    ).toBe('read done, about 2 webhooks left to deliver, counting those of 1 queued event');
    // The time left counts the webhooks still to deliver, after the reading too.
    expect(
      backfillStanding({ done: true, deliveryDone: false, webhooksLeft: 1330, etaSeconds: 9 }),
    ).toBe('read done, 1,330 webhooks left to deliver, about 9 s left');
    expect(backfillStanding({ done: true, deliveryDone: true })).toBe('done');
  });

  it('shows no share while the records to read are unknown, not the empty years of history', () => {
    expect(backfillPercent({ fraction: 0, done: false, readFraction: null })).toBeNull();
    expect(backfillPercent({ fraction: 0.415, done: false, readFraction: 0.5 })).toBe(41);
    // A bridge before the estimate answers no readFraction: its fraction as it is.
    expect(backfillPercent({ fraction: 0.8, done: false })).toBe(80);
    expect(backfillPercent({ fraction: 0.9, done: true, readFraction: 1 })).toBe(90);
  });

  it('says where its streams stand, naming only the states some are in', () => {
    expect(
      streamCountsLine({ total: 6500, reading: 5190, parked: 10, ended: 0, caughtUp: 1300 }),
    ).toBe('6,500 streams: 5,190 reading, 10 parked, 1,300 caught up');
    expect(streamCountsLine({ total: 1, reading: 0, parked: 0, ended: 0, caughtUp: 1 })).toBe(
      '1 stream: 1 caught up',
    );
    expect(streamCountsLine(undefined)).toBe('—');
  });
});
