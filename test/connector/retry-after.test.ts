import { describe, expect, it } from 'vitest';
import { parseRetryAfter, RETRY_AFTER_MAX_MS } from '../../shared/retry-after.ts';

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 10, 21, 10, 0, 0);
  it.each([
    ['2', 2000],
    ['0', 0],
    ['1.5', 1500],
    ['Sat, 21 Nov 2026 10:00:07 GMT', 7000],
    ['Sat, 21 Nov 2026 09:00:00 GMT', 0],
    ['99999999', RETRY_AFTER_MAX_MS],
  ])('reads %s as %i ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });

  it.each([
    ['Sunday, 21-Nov-26 10:00:07 GMT', 7000],
    ['Sat Nov 21 10:00:07 2026', 7000],
  ])(
    'reads the obsolete HTTP date %s as %i ms, in GMT whatever the local time zone',
    (value, expected) => {
      const zone = process.env.TZ;
      process.env.TZ = 'America/New_York';
      try {
        expect(parseRetryAfter(value, now)).toBe(expected);
      } finally {
        if (zone === undefined) delete process.env.TZ;
        else process.env.TZ = zone;
      }
    },
  );

  it.each([
    undefined,
    '',
    'soon',
    '-5',
    '+60',
    '1e3',
    '10 20 30',
    'Dec 2027',
    '2027-01-01T00:00:00Z',
  ])('returns undefined for %s', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });

  it("measures a date against the response's own Date header where it has one (clocks that differ)", () => {
    // The receiver's clock runs 30 s ahead of ours: its 10 s pause ends 10 s from now, not 40 s.
    const ahead = 'Sat, 21 Nov 2026 10:00:30 GMT';
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:40 GMT', now, { serverDate: ahead })).toBe(
      10_000,
    );
    // 30 s behind: the pause is still 10 s, not over before it began.
    const behind = 'Sat, 21 Nov 2026 09:59:30 GMT';
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:59:40 GMT', now, { serverDate: behind })).toBe(
      10_000,
    );
    // A Date header that is no HTTP-date leaves our clock in charge; delay-seconds ignore it.
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:07 GMT', now, { serverDate: 'now' })).toBe(7000);
    expect(parseRetryAfter('3', now, { serverDate: ahead })).toBe(3000);
    expect(
      parseRetryAfter('Sat, 21 Nov 2026 12:00:00 GMT', now, { serverDate: ahead, maxMs: 5000 }),
    ).toBe(5000);
  });
});
