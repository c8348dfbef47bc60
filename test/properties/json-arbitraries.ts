import fc from 'fast-check';

/** Object keys as records have them, minus the ones JSON Patch libraries refuse on purpose. */
const key = fc.string({ maxLength: 8 }).filter((k) => k !== '__proto__' && k !== 'constructor');

/** Any JSON value, nested a few levels, with keys a patch may have to escape (`/`, `~`). */
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 12 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** A record: a JSON object at the top, as every Connector API entity is. */
export const jsonRecord: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(key, jsonValue, {
  maxKeys: 6,
});

/** A second version of `record`: some fields kept, some changed, some removed, some added. */
export function editedRecord(
  record: Record<string, unknown>,
): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(record);
  return fc
    .tuple(
      fc.subarray(keys),
      fc.dictionary(fc.constantFrom(...keys, 'Added'), jsonValue, { maxKeys: 3 }),
    )
    .map(([kept, replaced]) => {
      const next: Record<string, unknown> = {};
      for (const k of kept) next[k] = record[k];
      return { ...next, ...replaced };
    });
}

/** The same JSON value with every object's keys in another order. */
export function reorderKeys(value: unknown, reverse: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => reorderKeys(item, reverse));
  if (typeof value !== 'object' || value === null) return value;
  const keys = Object.keys(value).sort();
  if (reverse) keys.reverse();
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = reorderKeys((value as Record<string, unknown>)[k], reverse);
  return out;
}
