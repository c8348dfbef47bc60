import { describe, expect, it } from 'vitest';
import {
  bulkSlot,
  liveSlot,
  pacedLimit,
  slotKept,
} from '../../shared/connector/budget/budget-pacing.ts';
import { bulkCapacityOf, LiveStreams } from '../../shared/connector/budget/live-reserve.ts';

describe('budget pacing, pure', () => {
  it('lowers the limit to three quarters while slowed after a 429, never below one', () => {
    expect(pacedLimit(200, false)).toBe(200);
    expect(pacedLimit(200, true)).toBe(150);
    expect(pacedLimit(1, true)).toBe(1);
  });

  it('serves live claims at once unless they ask more than their share, then spaces them', () => {
    expect(liveSlot(5_000, 4_000, 30_000, undefined)).toEqual({ pacedAt: 5_000, interval: 0 });
    expect(liveSlot(5_000, 4_000, 30_000, 300)).toEqual({ pacedAt: 4_100, interval: 100 });
  });

  it('spends half the bulk capacity at once with no live stream, then spreads the rest', () => {
    const idle = { now: 1_000, lastBulkSlotAt: 900, windowMs: 1_000, capacity: 10 };
    expect(bulkSlot({ ...idle, grants: [500, 600], livePolling: false })).toEqual({
      pacedAt: 1_000,
      interval: 0,
    });
    // Five of ten in the window: the five left spread from the last bulk slot (900) until the
    // oldest grant (500) ages out at 1,500.
    const five = [500, 600, 700, 800, 900];
    expect(bulkSlot({ ...idle, grants: five, livePolling: false })).toEqual({
      pacedAt: 1_020,
      interval: 120,
    });
    // A live stream polls: an even pace over the window from the last bulk slot.
    expect(bulkSlot({ ...idle, grants: [], livePolling: true })).toEqual({
      pacedAt: 1_000,
      interval: 100,
    });
  });

  it('keeps a grant on its paced slot when late by less than an interval', () => {
    expect(slotKept(1_050, { pacedAt: 1_000, interval: 100 })).toBe(1_000);
    expect(slotKept(1_200, { pacedAt: 1_000, interval: 100 })).toBe(1_200);
  });
});

describe('the live reserve, pure', () => {
  it('leaves bulk work the limit minus the reserve the live streams have not used', () => {
    expect(bulkCapacityOf(200, 60, 20)).toBe(160);
    expect(bulkCapacityOf(200, 60, 80)).toBe(200);
  });

  it('counts a stream polled every 10 s as 4 requests a 31 s window until it goes quiet', () => {
    const streams = new LiveStreams();
    streams.note({ priority: 'live', streamId: 's', intervalMs: 10_000 }, 0);
    streams.note({ priority: 'bulk', streamId: 'b', intervalMs: 10_000 }, 0);
    expect(streams.demand(1_000, 31_000)).toBe(4);
    expect(streams.reservedUntil(1_000, 31_000)).toBe(61_000);
    expect(streams.demand(61_001, 31_000)).toBe(0);
  });
});
