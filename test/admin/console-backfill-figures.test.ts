import { describe, expect, it } from 'vitest';
import { backfillStanding, streamCountsLine } from '../../shared/admin/console/backfill-figures.js';

describe("the console's figures of a backfill job", () => {
  it('says whether it is reading, delivering what it read, or done', () => {
    expect(backfillStanding({ done: false, deliveryDone: false, etaSeconds: 12 })).toBe(
      'reading, about 12 s left',
    );
    expect(backfillStanding({ done: false, deliveryDone: false, etaSeconds: null })).toBe(
      'reading',
    );
    expect(
      backfillStanding({ done: true, deliveryDone: false, webhooksLeft: 1330, eventsQueued: 5 }),
    ).toBe('read done, 1,330 webhooks left to deliver, 5 events queued');
    expect(backfillStanding({ done: true, deliveryDone: true })).toBe('done');
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
