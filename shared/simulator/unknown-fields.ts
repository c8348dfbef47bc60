import type { z } from 'zod';
import { isJsonObject } from '../json-object.ts';

/** A body and its parse by the request schema, once the fields the schema does not name are gone. */
export interface KnownFieldsReading {
  body: unknown;
  result: z.ZodSafeParseResult<unknown>;
}

/**
 * `value` with `keys` left out of the object found at `path` inside it, and how many it left
 * out; copies along the path, never mutates.
 */
function withoutKeysAt(
  value: unknown,
  path: readonly PropertyKey[],
  keys: readonly string[],
): { value: unknown; dropped: number } {
  const [head, ...rest] = path;
  if (head === undefined) {
    if (!isJsonObject(value)) return { value, dropped: 0 };
    const kept = Object.entries(value).filter(([key]) => !keys.includes(key));
    return { value: Object.fromEntries(kept), dropped: Object.keys(value).length - kept.length };
  }
  if (Array.isArray(value) && typeof head === 'number' && head < value.length) {
    const inner = withoutKeysAt(value[head], rest, keys);
    const copy = [...value];
    copy[head] = inner.value;
    return { value: copy, dropped: inner.dropped };
  }
  if (isJsonObject(value) && typeof head === 'string' && head in value) {
    const inner = withoutKeysAt(value[head], rest, keys);
    return { value: { ...value, [head]: inner.value }, dropped: inner.dropped };
  }
  return { value, dropped: 0 };
}

/**
 * Parses a request body with a strict request schema as the service reads it: a field the
 * contract does not name, at any depth, is ignored (the contract refuses none, and leaves some
 * request fields unnamed, such as restrictions/clear's rate group), so the body is parsed again
 * without the fields the schema reported unknown; every other issue stands. Pure; one parse
 * when the body names no unknown field.
 * @example parseKnownFields(z.strictObject({ A: z.number() }), { A: 1, B: 2 }).body // { A: 1 }
 */
export function parseKnownFields(schema: z.ZodType, body: unknown): KnownFieldsReading {
  let current = body;
  for (;;) {
    const result = schema.safeParse(current);
    if (result.success) return { body: current, result };
    const unknown = result.error.issues.filter((issue) => issue.code === 'unrecognized_keys');
    if (unknown.length === 0) return { body: current, result };
    let dropped = 0;
    for (const issue of unknown) {
      const without = withoutKeysAt(current, issue.path, issue.keys);
      current = without.value;
      dropped += without.dropped;
    }
    // Each round drops at least one key of a finite body, so the loop ends; a path that leads
    // to no such key (never seen) leaves the issues as they are.
    if (dropped === 0) return { body: current, result };
  }
}
