import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/errors.ts';
import { fromSnapshotItem } from '../../shared/state/dynamodb-items.ts';

const item = (fields: Record<string, unknown>) => ({
  pk: 'STREAM#main:customer',
  sk: 'SNAP#a',
  entityId: 'a',
  hash: 'h',
  updatedAt: 1,
  ...fields,
});

describe('fromSnapshotItem', () => {
  it('reads the record from recordZ when it inflates, else from record', () => {
    const z = deflateRawSync('{"Id":"z"}');
    expect(fromSnapshotItem(item({ recordZ: new Uint8Array(z) })).record).toEqual({ Id: 'z' });
    expect(
      fromSnapshotItem(item({ recordZ: Uint8Array.from([255, 1]), record: '{"Id":"r"}' })).record,
    ).toEqual({ Id: 'r' });
    expect(fromSnapshotItem(item({ recordZ: 'not bytes', record: '{"Id":"r"}' })).record).toEqual({
      Id: 'r',
    });
  });

  it('names record, and the item, when neither gives a record', () => {
    const snapshot = fromSnapshotItem(item({ recordZ: Uint8Array.from([255, 1]) }));
    expect(() => snapshot.record).toThrow(ValidationError);
    expect(() => snapshot.record).toThrow(expect.objectContaining({ path: 'record' }));
    expect(() => snapshot.record).toThrow(/STREAM#main:customer\/SNAP#a/);
  });

  it('names record when its text is not JSON, or JSON of no object, and says which', () => {
    const cases: Array<[string, RegExp]> = [
      ['{"Id":', /is not valid JSON/],
      ['[1,2]', /expected a JSON object/],
      ['"text"', /expected a JSON object/],
      ['null', /expected a JSON object/],
    ];
    for (const [text, message] of cases) {
      const snapshot = fromSnapshotItem(item({ record: text }));
      expect(() => snapshot.record).toThrow(expect.objectContaining({ path: 'record' }));
      expect(() => snapshot.record).toThrow(message);
    }
  });

  it('parses the record once, and gives the same object on every read', () => {
    const snapshot = fromSnapshotItem(item({ record: '{"Id":"r","Nested":{"a":[1]}}' }));
    expect(snapshot.record).toBe(snapshot.record);
    expect(snapshot.record).toEqual({ Id: 'r', Nested: { a: [1] } });
  });

  it('gives a snapshot whose members, record last and enumerable, are those of the item', () => {
    const snapshot = fromSnapshotItem(
      item({ record: '{"Id":"r"}', scope: { chainId: 'c' }, deleted: true, ttl: 9 }),
    );
    expect(Object.keys(snapshot)).toEqual([
      'entityId',
      'hash',
      'scope',
      'deleted',
      'updatedAt',
      'expiresAt',
      'record',
    ]);
    expect({ ...snapshot }).toEqual({
      entityId: 'a',
      hash: 'h',
      scope: { chainId: 'c' },
      deleted: true,
      updatedAt: 1,
      expiresAt: 9,
      record: { Id: 'r' },
    });
    expect(Object.keys(fromSnapshotItem(item({ record: '{}' })))).toEqual([
      'entityId',
      'hash',
      'updatedAt',
      'record',
    ]);
  });
});
