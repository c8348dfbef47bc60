import fc from 'fast-check';
import jsonPatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { contentHash } from '../../shared/changes/canonical.ts';
import { diffRecords, jsonEqual } from '../../shared/changes/diff.ts';
import { editedRecord, jsonRecord, reorderKeys } from './json-arbitraries.ts';

const pairOfVersions = jsonRecord.chain((previous) =>
  fc.tuple(fc.constant(previous), fc.oneof(editedRecord(previous), jsonRecord)),
);

describe('diff and hash properties', () => {
  it('applying patch to previous gives current, for any two records', () => {
    fc.assert(
      fc.property(pairOfVersions, ([previous, current]) => {
        const { patch } = diffRecords(previous, current);
        const applied = jsonPatch.applyPatch(structuredClone(previous), patch, true, false);
        expect(jsonEqual(applied.newDocument, current)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('lists changed fields exactly when the content hashes differ', () => {
    fc.assert(
      fc.property(pairOfVersions, ([previous, current]) => {
        const { changedFields } = diffRecords(previous, current);
        const hashesDiffer = contentHash(previous) !== contentHash(current);
        expect(changedFields.length > 0).toBe(hashesDiffer);
      }),
      { numRuns: 500 },
    );
  });

  it('hashes a record the same whatever the order of its keys', () => {
    fc.assert(
      fc.property(jsonRecord, (record) => {
        expect(contentHash(reorderKeys(record, true))).toBe(
          contentHash(reorderKeys(record, false)),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('hashes a record the same whatever its volatile fields hold', () => {
    fc.assert(
      fc.property(
        jsonRecord,
        fc.date({ noInvalidDate: true }),
        fc.date({ noInvalidDate: true }),
        (record, touched, retouched) => {
          const a = { ...record, UpdatedUtc: touched.toISOString() };
          const b = { ...record, UpdatedUtc: retouched.toISOString() };
          expect(contentHash(a)).toBe(contentHash(b));
          expect(diffRecords(a, b).changedFields).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
