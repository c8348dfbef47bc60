import { hash } from 'node:crypto';
import { BridgeError } from '../errors.ts';
import { isJsonObject } from '../json-object.ts';
import { keyOrderOf } from './key-order.ts';

/**
 * Top-level record fields ignored by default when deciding whether a record changed:
 * a record touched with no other change is not a change (design.md, Rules of behaviour).
 */
export const DEFAULT_VOLATILE_FIELDS: readonly string[] = ['UpdatedUtc'];

/** Options of {@link canonicalJson} and {@link contentHash}. */
export interface CanonicalOptions {
  /** Top-level field names left out; default {@link DEFAULT_VOLATILE_FIELDS}. */
  volatileFields?: readonly string[];
}

function writeValue(value: unknown, out: string[]): void {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') {
    out.push(JSON.stringify(value));
    return;
  }
  if (typeof value === 'number') {
    // JSON has no NaN or Infinity (JSON.stringify writes null); -0 and 0 are one number.
    out.push(Number.isFinite(value) ? JSON.stringify(value === 0 ? 0 : value) : 'null');
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item, index) => {
      if (index > 0) out.push(',');
      // As in JSON.stringify, holes and undefined inside arrays are null.
      writeValue(item === undefined ? null : item, out);
    });
    out.push(']');
    return;
  }
  if (isJsonObject(value)) {
    writeObject(value, [], out);
    return;
  }
  throw new BridgeError(`cannot canonicalise a value of type ${typeof value}: records are JSON`);
}

function writeObject(value: Record<string, unknown>, skip: readonly string[], out: string[]): void {
  // Code-unit order of keys: stable across engines and independent of insertion order.
  const keys = Object.keys(value)
    .filter((key) => value[key] !== undefined && !skip.includes(key))
    .sort();
  out.push('{');
  keys.forEach((key, index) => {
    if (index > 0) out.push(',');
    out.push(JSON.stringify(key), ':');
    writeValue(value[key], out);
  });
  out.push('}');
}

/** Returned by {@link sortedCopy} when an object's keys cannot keep their sorted order in a copy. */
const UNORDERABLE = Symbol('unorderable');

/**
 * A copy of `value` whose objects have their members inserted in code-unit order (undefined
 * members and the top level's `skip` left out), for one native JSON.stringify to write the
 * canonical string; {@link UNORDERABLE} when some object's keys cannot keep that order.
 */
function sortedCopy(value: unknown, skip: readonly string[]): unknown {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  // JSON.stringify writes -0 as 0 and NaN and the infinities as null, as writeValue does.
  if (typeof value === 'number') return value;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = value[i] === undefined ? null : sortedCopy(value[i], []);
      if (item === UNORDERABLE) return UNORDERABLE;
      copy[i] = item;
    }
    return copy;
  }
  if (!isJsonObject(value)) {
    throw new BridgeError(`cannot canonicalise a value of type ${typeof value}: records are JSON`);
  }
  const order = keyOrderOf(Object.keys(value));
  if (order.unorderable) return UNORDERABLE;
  const copy: Record<string, unknown> = {};
  for (const key of order.sorted) {
    const member = value[key];
    if (member === undefined || (skip.length > 0 && skip.includes(key))) continue;
    const item = sortedCopy(member, []);
    if (item === UNORDERABLE) return UNORDERABLE;
    copy[key] = item;
  }
  return copy;
}

/**
 * Serialises a JSON value with object keys sorted at every depth and the volatile fields
 * removed from the top level, so that equal content always gives the same string.
 * Undefined object members are dropped, as JSON.stringify does.
 *
 * Throws {@link BridgeError} on values JSON cannot hold (functions, bigints, symbols).
 * @example canonicalJson({ b: 1, a: { d: 2, c: 3 }, UpdatedUtc: 'x' }) // '{"a":{"c":3,"d":2},"b":1}'
 */
export function canonicalJson(value: unknown, options: CanonicalOptions = {}): string {
  const skip = options.volatileFields ?? DEFAULT_VOLATILE_FIELDS;
  // Fast path: a sorted copy written by the engine's JSON.stringify (records are parsed JSON,
  // so their objects are plain). Keys that a copy would reorder take the member-by-member writer.
  const copy = sortedCopy(value, isJsonObject(value) ? skip : []);
  if (copy !== UNORDERABLE) return JSON.stringify(copy);
  const out: string[] = [];
  if (isJsonObject(value)) {
    writeObject(value, skip, out);
  } else {
    writeValue(value, out);
  }
  return out.join('');
}

/**
 * The content hash of a record: lowercase hex SHA-256 of its {@link canonicalJson}. Key
 * order and volatile fields never change it; any other change of content does.
 * @example contentHash({ Id: 'c1', Email: 'a@b.c', UpdatedUtc: '2026-01-01T00:00:00Z' })
 */
export function contentHash(record: unknown, options: CanonicalOptions = {}): string {
  return hash('sha256', canonicalJson(record, options), 'hex');
}
