import type { EntityRecord } from './entity-types.ts';

/** The keys of the last record {@link recordFields} listed, and what it listed for them. */
interface ListedShape {
  keys: readonly string[];
  volatileFields: readonly string[];
  fields: readonly string[];
}

let lastShape: ListedShape | undefined;

/**
 * Whether `keys` are `shape`'s keys, in the same order, and each of `record`'s values under them
 * is defined (a listed shape holds no key of an undefined value).
 */
function isShapeOf(
  shape: ListedShape,
  keys: readonly string[],
  record: EntityRecord,
  volatileFields: readonly string[],
): boolean {
  if (shape.volatileFields !== volatileFields || shape.keys.length !== keys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key !== shape.keys[i] || record[key] === undefined) return false;
  }
  return true;
}

/**
 * The fields of `record` a `created` event lists as changed: every key whose value is defined,
 * but the volatile ones, in code-unit order. Records of one page share their keys, in the same
 * order (their operation's schema writes them), so the last record's list is taken again when
 * the keys match, instead of filtering and sorting them for each record (about 2 % of the main
 * thread of an emitting backfill). Returns a new array each time.
 * @example recordFields({ b: 1, a: 2, UpdatedUtc: 'x' }, ['UpdatedUtc']) // ['a', 'b']
 */
export function recordFields(record: EntityRecord, volatileFields: readonly string[]): string[] {
  const keys = Object.keys(record);
  if (lastShape && isShapeOf(lastShape, keys, record, volatileFields)) return [...lastShape.fields];
  let defined = true;
  const fields = keys
    .filter((key) => {
      if (record[key] === undefined) {
        defined = false;
        return false;
      }
      return !volatileFields.includes(key);
    })
    .sort();
  if (defined) lastShape = { keys, volatileFields, fields: [...fields] };
  return fields;
}
