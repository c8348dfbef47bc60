import { describe, expect, it } from 'vitest';
import { dayStartsBetween, isLocalMidnight, localMidnightUtc } from '../shared/time-zone.ts';

const iso = (epochMs: number) => new Date(epochMs).toISOString();

describe('the start of a local day', () => {
  it('is local midnight, also on a day whose clocks change later in the night', () => {
    expect(iso(localMidnightUtc(2026, 3, 29, 'Europe/Prague'))).toBe('2026-03-28T23:00:00.000Z');
    expect(iso(localMidnightUtc(2026, 3, 30, 'Europe/Prague'))).toBe('2026-03-29T22:00:00.000Z');
    expect(iso(localMidnightUtc(2026, 10, 25, 'Europe/Prague'))).toBe('2026-10-24T22:00:00.000Z');
  });

  it('is the jump where clocks skip midnight (DST starting at 00:00), and only that is a day start', () => {
    const santiago = localMidnightUtc(2026, 9, 6, 'America/Santiago');
    expect(iso(santiago)).toBe('2026-09-06T04:00:00.000Z');
    expect(isLocalMidnight(santiago, 'America/Santiago')).toBe(true);
    expect(isLocalMidnight(Date.parse('2026-09-06T03:00:00Z'), 'America/Santiago')).toBe(false);
    // The days around it start at midnight as usual (-04 before, -03 after).
    expect(
      dayStartsBetween(
        Date.parse('2026-09-05T04:00:00Z'),
        Date.parse('2026-09-07T03:00:00Z'),
        'America/Santiago',
      ).map(iso),
    ).toEqual(['2026-09-05T04:00:00.000Z', '2026-09-06T04:00:00.000Z', '2026-09-07T03:00:00.000Z']);
  });
});
