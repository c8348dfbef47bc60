import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  dayStartsBetween,
  isLocalMidnight,
  localMidnightUtc,
  localTime,
  localTimeFromParts,
} from '../shared/time-zone.ts';

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

/** Zones with DST at midnight, 30- and 45-minute offsets, a half-hour DST shift, and UTC+14. */
const ZONES = [
  'UTC',
  'Europe/Prague',
  'America/Santiago',
  'America/Havana',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'Australia/Lord_Howe',
  'Pacific/Kiritimati',
];

const referenceFormatters = new Map<string, Intl.DateTimeFormat>();

/** A formatter of its own per zone, with the fields localTime reads. */
function referenceFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = referenceFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    referenceFormatters.set(timeZone, formatter);
  }
  return formatter;
}

describe('the wall-clock time of an instant', () => {
  it('is what formatToParts gives, in zones of odd offsets and DST rules, across years and a clock change', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) }),
        (timeZone, epochMs) => {
          const reference = referenceFormatter(timeZone);
          expect(localTime(epochMs, timeZone)).toEqual(localTimeFromParts(reference, epochMs));
        },
      ),
      { numRuns: 2000 },
    );
    const santiagoJump = Date.parse('2026-09-06T04:00:00Z');
    expect(localTime(santiagoJump - 1000, 'America/Santiago')).toEqual({
      year: 2026,
      month: 9,
      day: 5,
      hour: 23,
      minute: 59,
      second: 59,
    });
    expect(localTime(santiagoJump, 'America/Santiago')).toEqual({
      year: 2026,
      month: 9,
      day: 6,
      hour: 1,
      minute: 0,
      second: 0,
    });
  });

  it('is read without building formatToParts part objects, a third of the cost per call', () => {
    const formatToParts = vi.spyOn(Intl.DateTimeFormat.prototype, 'formatToParts');
    try {
      expect(localTime(Date.parse('2026-03-29T01:30:00Z'), 'Europe/Prague')).toEqual({
        year: 2026,
        month: 3,
        day: 29,
        hour: 3,
        minute: 30,
        second: 0,
      });
      expect(formatToParts).not.toHaveBeenCalled();
    } finally {
      formatToParts.mockRestore();
    }
  });
});
