import { describe, expect, it } from 'vitest';
import { recordFields } from '../../shared/changes/record-fields.ts';

/** What recordFields lists, computed afresh for each record. */
function listed(record: Record<string, unknown>, volatileFields: readonly string[]): string[] {
  return Object.keys(record)
    .filter((key) => record[key] !== undefined && !volatileFields.includes(key))
    .sort();
}

describe('recordFields', () => {
  const volatile = ['UpdatedUtc'];

  it('lists the defined, non-volatile keys in code-unit order', () => {
    expect(recordFields({ b: 1, a: null, UpdatedUtc: 'x', Z: undefined, é: 2 }, volatile)).toEqual([
      'a',
      'b',
      'é',
    ]);
  });

  it('gives records of the same keys the same list, each time a new array', () => {
    const first = recordFields({ Id: 'c1', Name: 'A', UpdatedUtc: 'x' }, volatile);
    const second = recordFields({ Id: 'c2', Name: 'B', UpdatedUtc: 'y' }, volatile);
    expect(second).toEqual(['Id', 'Name']);
    expect(second).not.toBe(first);
    second.push('changed by a caller');
    expect(recordFields({ Id: 'c3', Name: 'C', UpdatedUtc: 'z' }, volatile)).toEqual([
      'Id',
      'Name',
    ]);
  });

  it('lists what differs from the last record: a value undefined, keys, order, volatile fields', () => {
    const records: Array<[Record<string, unknown>, readonly string[]]> = [
      [{ Id: 'c1', Name: 'A', UpdatedUtc: 'x' }, volatile],
      [{ Id: 'c1', Name: undefined, UpdatedUtc: 'x' }, volatile],
      [{ Id: 'c1', Name: 'A', UpdatedUtc: 'x' }, volatile],
      [{ Id: 'c1', Name: 'A', UpdatedUtc: 'x', Extra: 1 }, volatile],
      [{ Name: 'A', Id: 'c1', UpdatedUtc: 'x' }, volatile],
      [{ Name: 'A', Id: 'c1', UpdatedUtc: 'x' }, ['Name']],
      [{ Name: 'A', Id: 'c1', UpdatedUtc: 'x' }, []],
      [{ Id: 'c1' }, []],
      [{}, []],
    ];
    for (const [record, fields] of records)
      expect(recordFields(record, fields)).toEqual(listed(record, fields));
  });
});
