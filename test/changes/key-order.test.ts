import { describe, expect, it } from 'vitest';
import { keyOrderOf } from '../../shared/changes/key-order.ts';

describe('keyOrderOf', () => {
  it('keeps the orders of several key lists of one length (nested objects of one size)', () => {
    const address = () => ['Id', 'Line1', 'City', 'PostalCode'];
    const passport = () => ['Id', 'Type', 'Number', 'Expiration'];
    const first = keyOrderOf(address());
    const other = keyOrderOf(passport());
    // Alternating lists of one length find theirs again instead of sorting anew.
    expect(keyOrderOf(address())).toBe(first);
    expect(keyOrderOf(passport())).toBe(other);
    expect(first.sorted).toEqual(['City', 'Id', 'Line1', 'PostalCode']);
    expect(other.sorted).toEqual(['Expiration', 'Id', 'Number', 'Type']);
  });

  it('sorts a list it no longer keeps again, the same way', () => {
    const lists = Array.from({ length: 20 }, (_, i) => [`k${i}`, `a${i}`, `${i}`]);
    const orders = lists.map((keys) => keyOrderOf(keys));
    for (const [i, keys] of lists.entries()) {
      expect(keyOrderOf([...keys]).sorted).toEqual(orders[i]!.sorted);
      expect(orders[i]!.sorted).toEqual([...keys].sort());
    }
  });
});
