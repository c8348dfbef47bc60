import { describe, expect, it } from 'vitest';
import { diffRecords, showValue } from '../../shared/admin/console/diff.js';

describe('console diff of previous to current', () => {
  it('lists each changed leaf by path, nested objects and arrays included', () => {
    const previous = { Email: 'a@x', Address: { City: 'Brno', Zip: '602' }, Tags: ['vip'] };
    const current = { Email: 'b@x', Address: { City: 'Praha', Zip: '602' }, Tags: ['vip', 'new'] };
    expect(diffRecords(previous, current)).toEqual([
      { path: 'Address.City', kind: 'changed', before: 'Brno', after: 'Praha' },
      { path: 'Email', kind: 'changed', before: 'a@x', after: 'b@x' },
      { path: 'Tags[1]', kind: 'added', after: 'new' },
    ]);
  });

  it('shows every field as added for a created record and as removed for a deleted one', () => {
    expect(diffRecords(null, { Id: 'c-1', Name: 'N' })).toEqual([
      { path: 'Id', kind: 'added', after: 'c-1' },
      { path: 'Name', kind: 'added', after: 'N' },
    ]);
    expect(diffRecords({ Id: 'c-1' }, null)).toEqual([
      { path: 'Id', kind: 'removed', before: 'c-1' },
    ]);
  });

  it('treats a field turning null or changing kind as a change of that field', () => {
    expect(diffRecords({ Phone: '1', Note: { a: 1 } }, { Phone: null, Note: 'text' })).toEqual([
      { path: 'Note', kind: 'changed', before: { a: 1 }, after: 'text' },
      { path: 'Phone', kind: 'changed', before: '1', after: null },
    ]);
    expect(showValue({ a: 1 })).toBe('{"a":1}');
    expect(showValue('text')).toBe('text');
  });

  it('finds nothing between equal records', () => {
    expect(diffRecords({ A: [1, { B: 2 }] }, { A: [1, { B: 2 }] })).toEqual([]);
  });
});
