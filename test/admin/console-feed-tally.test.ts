import { describe, expect, it } from 'vitest';
import { createFeedTally, eventsPerMinute } from '../../shared/admin/console/feed-tally.js';

const T0 = Date.UTC(2026, 10, 28, 12, 0, 0);
const at = (ms: number) => new Date(ms).toISOString();
const event = (id: string, type: string, ms: number) => ({ id, type, storedAt: at(ms) });

describe('the console feed chart', () => {
  it('counts every event the feed brings once, over the whole 30 minutes, not only those it shows', () => {
    const tally = createFeedTally({ overlapMs: 30_000 });
    // 25 minutes of answers, 40 events a minute: 1,000 events, more than the 500 the feed shows.
    let n = 0;
    for (let minute = 0; minute < 25; minute++) {
      const now = T0 + (minute + 1) * 60_000;
      const fresh = Array.from({ length: 40 }, (_, i) =>
        event(
          `e${n++}`,
          i % 4 === 0 ? 'customer.created' : 'customer.updated',
          T0 + minute * 60_000 + i * 1000,
        ),
      );
      // Each answer repeats the last 10 s (the overlap): those count once.
      const repeated = fresh.slice(-10);
      tally.add([...fresh, ...repeated], false, now);
    }
    const chart = eventsPerMinute(tally.perMinute, T0 + 25 * 60_000);
    expect(chart.total).toBe(1000);
    expect(chart.series).toEqual(['customer.updated', 'customer.created']);
    const counted = chart.buckets.map(
      (b) => (b.values['customer.updated'] ?? 0) + (b.values['customer.created'] ?? 0),
    );
    expect(counted.filter((c) => c === 40)).toHaveLength(25);
    expect(tally.completeFrom()).toBeUndefined();
  });

  it('forgets minutes older than the window, and says from when counts are whole after a full answer', () => {
    const tally = createFeedTally();
    tally.add([event('old', 'customer.updated', T0)], false, T0 + 1000);
    // A full answer (it held as many as it may): what came before its oldest event was left out.
    tally.add([event('a', 'resource.updated', T0 + 40 * 60_000 + 5_000)], true, T0 + 41 * 60_000);
    expect([...tally.perMinute.keys()]).toEqual([T0 + 40 * 60_000]);
    expect(tally.completeFrom()).toBe(T0 + 41 * 60_000);
    expect(eventsPerMinute(tally.perMinute, T0 + 41 * 60_000).total).toBe(1);
  });
});
