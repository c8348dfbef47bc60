import { z } from 'zod';
import { isJsonObject } from '../json-object.ts';
import { type CanonicalOptions, DEFAULT_VOLATILE_FIELDS } from './canonical.ts';
import { keyOrderOf, sameKeys } from './key-order.ts';

/** One RFC 6902 operation of a change event's `patch`: add, remove or replace. */
export const JsonPatchOperationSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('add'), path: z.string(), value: z.unknown() }),
  z.object({ op: z.literal('remove'), path: z.string() }),
  z.object({ op: z.literal('replace'), path: z.string(), value: z.unknown() }),
]);

/** An RFC 6902 add, remove or replace operation. */
export type JsonPatchOperation = z.infer<typeof JsonPatchOperationSchema>;

/** What changed between two versions of a record. */
export interface RecordDiff {
  /** Top-level field names whose values differ, sorted, volatile fields excluded. */
  changedFields: string[];
  /** RFC 6902 operations turning `previous` into `current` exactly (volatile fields included). */
  patch: JsonPatchOperation[];
}

/**
 * Escapes one JSON Pointer reference token (RFC 6901 section 4): `~` becomes `~0` and `/`
 * becomes `~1`, in that order, so that `~1` in a key does not turn into `/`.
 * @example escapePointerToken('a/b~c') // 'a~1b~0c'
 */
export function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Own keys holding a value: JSON has no undefined, so an undefined member counts as absent. */
function presentKeys(value: Record<string, unknown>): string[] {
  return Object.keys(value).filter((key) => value[key] !== undefined);
}

/** An own member's value; inherited ones (`toString`, `constructor`) are not members of JSON. */
function member(value: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

/**
 * Deep equality of two JSON values: key order does not matter, array order does.
 * @example jsonEqual({ a: [1, 2], b: null }, { b: null, a: [1, 2] }) // true
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => jsonEqual(item, b[index]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = presentKeys(a);
    if (keys.length !== presentKeys(b).length) return false;
    return keys.every((key) => member(b, key) !== undefined && jsonEqual(a[key], member(b, key)));
  }
  return false;
}

/**
 * Appends the operations turning `previous` into `current` at `path`; none when they are equal.
 * One pass: equal members add nothing and build no path, so no subtree is compared twice.
 */
function diffValue(previous: unknown, current: unknown, path: string, ops: JsonPatchOperation[]) {
  if (previous === current) return;
  if (isJsonObject(previous) && isJsonObject(current)) {
    diffObject(previous, current, path, ops);
    return;
  }
  // Arrays of one length are diffed by index; a length change replaces the whole array,
  // which keeps patches readable and avoids index shifting between operations.
  if (Array.isArray(previous) && Array.isArray(current) && previous.length === current.length) {
    for (let index = 0; index < previous.length; index++) {
      const before = previous[index];
      const after = current[index];
      if (before !== after) diffValue(before, after, `${path}/${index}`, ops);
    }
    return;
  }
  ops.push({ op: 'replace', path, value: current });
}

/**
 * The keys of both objects in code-unit order (a key may be undefined on both sides: its
 * members are then equal). Two versions of a record mostly share their key list: its sorted
 * order is then looked up (see keyOrderOf), not sorted again.
 */
function unionOfKeys(
  previous: Record<string, unknown>,
  current: Record<string, unknown>,
): readonly string[] {
  const previousKeys = Object.keys(previous);
  const currentKeys = Object.keys(current);
  if (sameKeys(previousKeys, currentKeys)) return keyOrderOf(previousKeys).sorted;
  const keys = [...previousKeys];
  for (const key of currentKeys) if (!Object.hasOwn(previous, key)) keys.push(key);
  return keys.sort();
}

/**
 * Appends the operations of each member of two objects, in key order; returns the keys whose
 * members differ (an operation was added for them).
 */
function diffObject(
  previous: Record<string, unknown>,
  current: Record<string, unknown>,
  path: string,
  ops: JsonPatchOperation[],
): string[] {
  const changed: string[] = [];
  for (const key of unionOfKeys(previous, current)) {
    const before = member(previous, key);
    const after = member(current, key);
    if (before === after) continue;
    const count = ops.length;
    const childPath = `${path}/${escapePointerToken(key)}`;
    if (after === undefined) ops.push({ op: 'remove', path: childPath });
    else if (before === undefined) ops.push({ op: 'add', path: childPath, value: after });
    else diffValue(before, after, childPath, ops);
    if (ops.length > count) changed.push(key);
  }
  return changed;
}

/**
 * Diffs two versions of a record. `changedFields` lists the top-level fields whose values
 * differ (sorted, volatile fields left out, so it is empty exactly when the content hashes
 * are equal); `patch` is an RFC 6902 patch from `previous` to `current` that includes the
 * volatile fields, so applying it to `previous` yields `current` exactly.
 *
 * Objects are diffed member by member; arrays of the same length index by index; arrays
 * of different lengths and values of different kinds are replaced whole. Pure.
 * @example diffRecords({ Id: '1', Email: 'a' }, { Id: '1', Email: 'b' }) // { changedFields: ['Email'], patch: [{ op: 'replace', path: '/Email', value: 'b' }] }
 */
export function diffRecords(
  previous: Readonly<Record<string, unknown>>,
  current: Readonly<Record<string, unknown>>,
  options: CanonicalOptions = {},
): RecordDiff {
  const volatile = options.volatileFields ?? DEFAULT_VOLATILE_FIELDS;
  const patch: JsonPatchOperation[] = [];
  // A member differs exactly when it adds an operation (equal values add none, different ones
  // at least one), so the top level's operations name the changed fields.
  const changed = diffObject(previous, current, '', patch);
  const changedFields = changed.filter((field) => !volatile.includes(field));
  return { changedFields, patch };
}
