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

  it.each([undefined, '', 'soon'])('returns undefined for %s', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});
