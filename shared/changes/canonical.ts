import { hash } from 'node:crypto';
import { writeJsonBytes } from './json-bytes.ts';

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

/**
 * Serialises a JSON value with object keys sorted at every depth and the volatile fields
 * removed from the top level, so that equal content always gives the same string.
 * Undefined object members are dropped, as JSON.stringify does.
 *
 * Throws BridgeError on values JSON cannot hold (functions, bigints, symbols).
 * @example canonicalJson({ b: 1, a: { d: 2, c: 3 }, UpdatedUtc: 'x' }) // '{"a":{"c":3,"d":2},"b":1}'
 */
export function canonicalJson(value: unknown, options: CanonicalOptions = {}): string {
  const skip = options.volatileFields ?? DEFAULT_VOLATILE_FIELDS;
  return writeJsonBytes(value, { sorted: true, skip }, (bytes) => bytes.toString('utf8'));
}

/**
 * The content hash of a record: lowercase hex SHA-256 of the UTF-8 of its {@link canonicalJson}
 * (hashed as written, with no string in between). Key order and volatile fields never change
 * it; any other change of content does.
 * @example contentHash({ Id: 'c1', Email: 'a@b.c', UpdatedUtc: '2026-01-01T00:00:00Z' })
 */
export function contentHash(record: unknown, options: CanonicalOptions = {}): string {
  const skip = options.volatileFields ?? DEFAULT_VOLATILE_FIELDS;
  return writeJsonBytes(record, { sorted: true, skip }, (bytes) => hash('sha256', bytes, 'hex'));
}
