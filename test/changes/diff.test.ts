import jsonpatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../shared/changes/canonical.ts';
import {
  diffRecords,
  escapePointerToken,
  type JsonPatchOperation,
  jsonEqual,
} from '../../shared/changes/diff.ts';
import { seededRandom } from '../../shared/clock.ts';
import { mutateObject, randomObject } from './json-generator.ts';

/** Applies our patch with the independent RFC 6902 implementation, validating each operation. */
function applyWithOracle(previous: unknown, patch: JsonPatchOperation[]): unknown {
  return jsonpatch.applyPatch(structuredClone(previous), structuredClone(patch), true).newDocument;
}

describe('escapePointerToken', () => {
  it('escapes ~ before / as RFC 6901 requires', () => {
    expect(escapePointerToken('a/b~c')).toBe('a~1b~0c');
    expect(escapePointerToken('~1')).toBe('~01');
    expect(escapePointerToken('')).toBe('');
  });

  it('agrees with the oracle escaping', () => {
    for (const key of ['a/b', '~', '~/~/', 'plain', '/~1']) {
      expect(escapePointerToken(key)).toBe(jsonpatch.escapePathComponent(key));
    }
  });
});

describe('diffRecords', () => {
  it('reports changed top-level fields and a replace for a changed scalar', () => {
    const result = diffRecords(
      { Id: '1', Email: 'a@x', UpdatedUtc: 't1' },
      { Id: '1', Email: 'b@x', UpdatedUtc: 't2' },
    );
    expect(result.changedFields).toEqual(['Email']);
    expect(result.patch).toEqual([
      { op: 'replace', path: '/Email', value: 'b@x' },
      { op: 'replace', path: '/UpdatedUtc', value: 't2' },
    ]);
  });

  it('recurses into objects and escapes keys in paths', () => {
    const result = diffRecords(
      { Address: { City: 'Prague', 'a/b': 1, 'x~y': 2 } },
      { Address: { City: 'Prague', 'a/b': 3, Line1: 'Main' } },
    );
    expect(result.changedFields).toEqual(['Address']);
    expect(result.patch).toEqual([
      { op: 'add', path: '/Address/Line1', value: 'Main' },
      { op: 'replace', path: '/Address/a~1b', value: 3 },
      { op: 'remove', path: '/Address/x~0y' },
    ]);
  });

  it('diffs arrays of one length by index and replaces arrays of another length whole', () => {
    expect(diffRecords({ L: [1, { a: 1 }] }, { L: [1, { a: 2 }] }).patch).toEqual([
      { op: 'replace', path: '/L/1/a', value: 2 },
    ]);
    expect(diffRecords({ L: [1, 2] }, { L: [1, 2, 3] }).patch).toEqual([
      { op: 'replace', path: '/L', value: [1, 2, 3] },
    ]);
  });

  it('treats null and absence as different', () => {
    const result = diffRecords({ A: null }, {});
    expect(result.changedFields).toEqual(['A']);
    expect(result.patch).toEqual([{ op: 'remove', path: '/A' }]);
  });

  it('returns nothing for records equal up to key order', () => {
    expect(diffRecords({ a: { b: 1, c: 2 }, d: 3 }, { d: 3, a: { c: 2, b: 1 } })).toEqual({
      changedFields: [],
      patch: [],
    });
  });

  it('keeps volatile fields in the patch but not in changedFields', () => {
    const result = diffRecords(
      { Name: 'x', Stamp: 1 },
      { Name: 'x', Stamp: 2 },
      {
        volatileFields: ['Stamp'],
      },
    );
    expect(result.changedFields).toEqual([]);
    expect(result.patch).toEqual([{ op: 'replace', path: '/Stamp', value: 2 }]);
  });

  it('produces patches that turn previous into current under the RFC 6902 oracle', () => {
    const random = seededRandom(20260101);
    for (let i = 0; i < 1500; i++) {
      const previous = randomObject(random, 4);
      const current = mutateObject(random, previous, 4);
      const { patch, changedFields } = diffRecords(previous, current);
      expect(applyWithOracle(previous, patch)).toEqual(current);
      expect(changedFields.length === 0).toBe(canonicalJson(previous) === canonicalJson(current));
      expect(patch.length === 0).toBe(jsonEqual(previous, current));
    }
  });

  it('lists exactly the top-level fields the oracle sees changed', () => {
    const random = seededRandom(7);
    for (let i = 0; i < 300; i++) {
      const previous = randomObject(random, 3);
      const current = mutateObject(random, previous, 3);
      const touched = new Set(
        jsonpatch
          .compare(previous, current)
          .map((op) => jsonpatch.unescapePathComponent(op.path.split('/')[1] ?? '')),
      );
      touched.delete('UpdatedUtc');
      expect(diffRecords(previous, current).changedFields).toEqual([...touched].sort());
    }
  });

  it('treats members named like Object.prototype methods as ordinary fields', () => {
    expect(diffRecords({ toString: null, Id: '1' }, { Id: '1' })).toEqual({
      changedFields: ['toString'],
      patch: [{ op: 'remove', path: '/toString' }],
    });
    expect(diffRecords({ Id: '1' }, { Id: '1', valueOf: 2 }).patch).toEqual([
      { op: 'add', path: '/valueOf', value: 2 },
    ]);
  });
});
