import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../shared/connector/operations.ts';
import { isWithinThreeMonths } from '../../shared/connector/records/common.ts';
import { toValidationError } from '../../shared/errors.ts';

// design.md facts: a time filter is at most 3 months long, a longer one is a 400; .NET writes
// seven digits of a second, so a bound may lie 100 ns past a whole millisecond. Date.parse drops
// those digits, which made an interval 100 ns too long (or one ending before it starts) pass.
const START = '2026-01-01T00:00:00Z';
const CASES: [string, string, string, boolean][] = [
  ['exactly three months', START, '2026-04-01T00:00:00Z', true],
  [
    'exactly three months, both bounds 100 ns in',
    '2026-01-01T00:00:00.0000001Z',
    '2026-04-01T00:00:00.0000001Z',
    true,
  ],
  ['three months less 100 ns', '2026-01-01T00:00:00.0000001Z', '2026-04-01T00:00:00Z', true],
  ['three months and 100 ns', START, '2026-04-01T00:00:00.0000001Z', false],
  ['three months and 100 ns, offset spelling', START, '2026-04-01T00:00:00.0000001+00:00', false],
  [
    'three months and 1 ns past a bound 100 ns in',
    '2026-01-01T00:00:00.0000001Z',
    '2026-04-01T00:00:00.000000101Z',
    false,
  ],
  [
    'an empty interval 100 ns in',
    '2026-02-01T00:00:00.0000001Z',
    '2026-02-01T00:00:00.0000001Z',
    true,
  ],
  [
    'an end 100 ns before the start',
    '2026-02-01T00:00:00.0000002Z',
    '2026-02-01T00:00:00.0000001Z',
    false,
  ],
];

describe('time filter bounds below the millisecond', () => {
  for (const [what, start, end, allowed] of CASES) {
    it(`${allowed ? 'accepts' : 'refuses'} ${what}`, () => {
      expect(isWithinThreeMonths(start, end)).toBe(allowed);
      const parsed = OPERATIONS['paymentRequests/getAll'].request.safeParse({
        Limitation: { Count: 10 },
        UpdatedUtc: { StartUtc: start, EndUtc: end },
      });
      expect(parsed.success).toBe(allowed);
      if (!parsed.success)
        expect(toValidationError('request', parsed.error).path).toBe('UpdatedUtc.EndUtc');
    });
  }
});
