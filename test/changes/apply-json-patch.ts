/**
 * A small, strict RFC 6902 applier for the operations change events carry (add, remove,
 * replace), written from the RFC and RFC 6901 alone, so the diff is checked against an
 * implementation that shares no code with it. Test-only. Strict where the RFC is: `replace`
 * and `remove` need an existing target, `add` an existing parent; a pointer that resolves to
 * nothing throws.
 */
import type { JsonPatchOperation } from '../../shared/changes/diff.ts';

/** Splits a JSON Pointer into its unescaped reference tokens (RFC 6901 sections 3 and 4). */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`not a JSON Pointer: ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      if (/~[^01]|~$/.test(token)) throw new Error(`bad escape in ${JSON.stringify(pointer)}`);
      return token.replaceAll('~1', '/').replaceAll('~0', '~');
    });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function arrayIndex(token: string, length: number, adding: boolean): number {
  if (adding && token === '-') return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new Error(`not an array index: ${token}`);
  const index = Number(token);
  if (index > length || (!adding && index === length))
    throw new Error(`index ${index} out of range`);
  return index;
}

function applyOne(document: unknown, operation: JsonPatchOperation): unknown {
  const tokens = pointerTokens(operation.path);
  const last = tokens.pop();
  if (last === undefined) {
    if (operation.op === 'remove') throw new Error('cannot remove the whole document');
    return structuredClone(operation.value);
  }
  let parent: unknown = document;
  for (const token of tokens) {
    if (Array.isArray(parent)) parent = parent[arrayIndex(token, parent.length, false)];
    else if (isObject(parent) && Object.hasOwn(parent, token)) parent = parent[token];
    else throw new Error(`path ${operation.path} does not resolve at ${token}`);
  }
  if (Array.isArray(parent)) {
    const index = arrayIndex(last, parent.length, operation.op === 'add');
    if (operation.op === 'add') parent.splice(index, 0, structuredClone(operation.value));
    else if (operation.op === 'remove') parent.splice(index, 1);
    else parent[index] = structuredClone(operation.value);
    return document;
  }
  if (!isObject(parent)) throw new Error(`parent of ${operation.path} is not a container`);
  const exists = Object.hasOwn(parent, last);
  if (operation.op !== 'add' && !exists)
    throw new Error(`${operation.op} of a missing member ${operation.path}`);
  if (operation.op === 'remove') delete parent[last];
  // defineProperty: a member named `__proto__` is an own member in JSON, not the prototype.
  else
    Object.defineProperty(parent, last, {
      value: structuredClone(operation.value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return document;
}

/** Applies `patch` to a copy of `document` and returns the result; throws on any bad operation. */
export function applyJsonPatch(document: unknown, patch: readonly JsonPatchOperation[]): unknown {
  let result = structuredClone(document);
  for (const operation of patch) result = applyOne(result, operation);
  return result;
}
