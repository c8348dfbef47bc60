import { describe, expect, it } from 'vitest';
import { canonicalJson, contentHash } from '../../shared/changes/canonical.ts';
import { seededRandom } from '../../shared/clock.ts';
import { randomJson } from './json-generator.ts';

const customer = {
  Id: 'c1',
  ChainId: 'ch1',
  Email: 'ann@example.com',
  Address: { City: 'Prague', Line1: 'Main 1', CountryCode: 'CZ' },
  Classifications: ['Returning', 'Staff'],
  UpdatedUtc: '2026-01-01T00:00:00Z',
};

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops UpdatedUtc by default', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 3 }, UpdatedUtc: 'x' })).toBe(
      '{"a":{"c":3,"d":[{"y":2,"z":1}]},"b":1}',
    );
  });

  it('removes only top-level volatile fields', () => {
    expect(canonicalJson({ Nested: { UpdatedUtc: 'x' }, UpdatedUtc: 'y' })).toBe(
      '{"Nested":{"UpdatedUtc":"x"}}',
    );
  });

  it('removes the configured volatile fields instead of the default', () => {
    const value = { A: 1, B: 2, UpdatedUtc: 'x' };
    expect(canonicalJson(value, { volatileFields: ['B'] })).toBe('{"A":1,"UpdatedUtc":"x"}');
    expect(canonicalJson(value, { volatileFields: [] })).toBe('{"A":1,"B":2,"UpdatedUtc":"x"}');
  });

  it('writes JSON that parses back to the same content', () => {
    const value = { s: 'quote " and \\ and \u2028', n: [1.5, -2, null, true], e: {} };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });

  it('drops undefined members as JSON does and treats -0 as 0', () => {
    expect(canonicalJson({ a: undefined, b: -0 })).toBe('{"b":0}');
  });

  it('keeps code-unit order for keys an object would enumerate first, and for __proto__', () => {
    const parsed = JSON.parse('{"b":1,"10":2,"9":3,"__proto__":{"x":1},"a":[{"2":0,"1":0}]}');
    expect(canonicalJson(parsed)).toBe(
      '{"10":2,"9":3,"__proto__":{"x":1},"a":[{"1":0,"2":0}],"b":1}',
    );
    // Not array indices: these stay where code-unit order puts them.
    expect(canonicalJson({ b: 1, '01': 2, '-1': 3, '4294967295': 4 })).toBe(
      '{"-1":3,"01":2,"4294967295":4,"b":1}',
    );
  });

  it('writes members named like Object.prototype members only where they are own members', () => {
    const value: Record<string, unknown> = {
      a: { toString: 'x', constructor: 1 },
      b: { c: 1 },
      d: [{ valueOf: null }, {}],
    };
    expect(canonicalJson(value)).toBe(
      '{"a":{"constructor":1,"toString":"x"},"b":{"c":1},"d":[{"valueOf":null},{}]}',
    );
  });

  it('writes a record of many small objects sharing few keys like any other', () => {
    const items = Array.from({ length: 50 }, (_, i) => ({ [`k${i}`]: i, Id: `i${i}` }));
    const written = canonicalJson({ Items: items, UpdatedUtc: 'x' });
    expect(written).toBe(
      JSON.stringify({ Items: items.map((_item, i) => ({ Id: `i${i}`, [`k${i}`]: i })) }),
    );
  });

  it('sorts objects of one shape alike, and others with as many keys each their own way', () => {
    const objects = [
      { b: 1, a: 2, c: 3 },
      { b: 4, a: 5, c: 6 },
      { c: 7, b: 8, a: 9 },
      { z: 1, y: 2, x: 3 },
      { b: undefined, a: 1, c: 2 },
      { b: 1, a: 2, c: 3 },
    ];
    expect(objects.map((value) => canonicalJson(value))).toEqual([
      '{"a":2,"b":1,"c":3}',
      '{"a":5,"b":4,"c":6}',
      '{"a":9,"b":8,"c":7}',
      '{"x":3,"y":2,"z":1}',
      '{"a":1,"c":2}',
      '{"a":2,"b":1,"c":3}',
    ]);
  });

  it('writes what a member-by-member sorted writer writes, for random JSON', () => {
    const sorted = (value: unknown): string => {
      if (Array.isArray(value)) return `[${value.map(sorted).join(',')}]`;
      if (typeof value !== 'object' || value === null) return JSON.stringify(value);
      const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${sorted(item)}`).join(',')}}`;
    };
    const random = seededRandom(11);
    for (let n = 0; n < 2000; n++) {
      const value = randomJson(random, 4);
      const volatile = { volatileFields: [] };
      expect(canonicalJson(value, volatile)).toBe(sorted(value));
    }
  });

  it('rejects values JSON cannot hold', () => {
    expect(() => canonicalJson({ a: 10n })).toThrow(/bigint/);
  });
});

describe('contentHash', () => {
  it('is a lowercase sha256 hex digest', () => {
    expect(contentHash(customer)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores key order at every depth', () => {
    const reordered = {
      UpdatedUtc: customer.UpdatedUtc,
      Classifications: customer.Classifications,
      Address: { CountryCode: 'CZ', Line1: 'Main 1', City: 'Prague' },
      Email: customer.Email,
      ChainId: customer.ChainId,
      Id: customer.Id,
    };
    expect(contentHash(reordered)).toBe(contentHash(customer));
  });

  it('does not change when only UpdatedUtc changes', () => {
    expect(contentHash({ ...customer, UpdatedUtc: '2026-02-02T10:00:00Z' })).toBe(
      contentHash(customer),
    );
  });

  it('changes when any other field changes, at any depth', () => {
    const base = contentHash(customer);
    expect(contentHash({ ...customer, Email: 'bob@example.com' })).not.toBe(base);
    expect(contentHash({ ...customer, Address: { ...customer.Address, City: 'Brno' } })).not.toBe(
      base,
    );
    expect(contentHash({ ...customer, Classifications: ['Staff', 'Returning'] })).not.toBe(base);
    expect(contentHash({ ...customer, Extra: null })).not.toBe(base);
  });

  it('changes with UpdatedUtc when it is not volatile', () => {
    const touched = { ...customer, UpdatedUtc: '2026-02-02T10:00:00Z' };
    expect(contentHash(touched, { volatileFields: [] })).not.toBe(
      contentHash(customer, { volatileFields: [] }),
    );
  });
});
