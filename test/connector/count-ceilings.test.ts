import { describe, expect, it } from 'vitest';
import { COUNT_REGROW_AFTER, CountCeilings } from '../../shared/connector/count-ceilings.ts';

describe('CountCeilings', () => {
  it('asks what callers ask until a timeout halves it, then the halved Count, per operation', () => {
    const ceilings = new CountCeilings();
    expect(ceilings.countFor('customers/getAll', 1000)).toBe(1000);
    ceilings.answered('customers/getAll', 1000, 1000);
    expect(ceilings.countFor('customers/getAll', 1000)).toBe(1000);
    ceilings.answered('customers/getAll', 1000, 125);
    expect(ceilings.countFor('customers/getAll', 1000)).toBe(125);
    expect(ceilings.countFor('customers/getAll', 50)).toBe(50);
    expect(ceilings.countFor('resources/getAll', 1000)).toBe(1000);
  });

  it('doubles a ceiling after a run of successes at it, and halves it again on the next timeout', () => {
    const ceilings = new CountCeilings();
    ceilings.answered('customers/getAll', 1000, 250);
    for (let n = 1; n < COUNT_REGROW_AFTER; n++) ceilings.answered('customers/getAll', 250, 250);
    // A smaller request's success says nothing of the ceiling.
    ceilings.answered('customers/getAll', 10, 10);
    expect(ceilings.countFor('customers/getAll', 1000)).toBe(250);
    ceilings.answered('customers/getAll', 250, 250);
    expect(ceilings.countFor('customers/getAll', 1000)).toBe(500);
    ceilings.answered('customers/getAll', 500, 250);
    expect(ceilings.countFor('customers/getAll', 1000)).toBe(250);
  });
});
