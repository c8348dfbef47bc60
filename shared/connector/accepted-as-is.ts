import type { z } from 'zod';

/** The parts of a zod 4 schema's internals (`_zod`) this module reads. */
interface SchemaInternals {
  def: {
    type: string;
    checks?: readonly unknown[];
    coerce?: boolean;
    innerType?: z.ZodType;
    element?: z.ZodType;
    shape?: Record<string, z.ZodType>;
    catchall?: z.ZodType;
  };
  traits: Set<string>;
  optin?: 'optional' | 'defaulted';
  optout?: 'optional';
  values?: Set<unknown>;
  run(
    payload: { value: unknown; issues: unknown[] },
    ctx: { async: false },
  ): { value: unknown; issues: unknown[] } | Promise<unknown>;
}

/** Tells whether a value is taken as it is (see {@link acceptedAsIs}). */
type AsIs = (value: unknown) => boolean;

const SYNC = { async: false } as const;
const never: AsIs = () => false;
const checkers = new WeakMap<object, AsIs>();

function internalsOf(schema: z.ZodType): SchemaInternals {
  return (schema as unknown as { _zod: SchemaInternals })._zod;
}

/**
 * Whether `schema` takes `value` as it is: its parse would succeed and give back a value equal
 * to `value` member for member, so `value` itself can stand for the parse's output (without the
 * copy zod makes of every object and array it parses: ~8 µs and ~10 KB of garbage a customer,
 * 8 % of the main thread of an emitting backfill). False whenever that cannot be told for sure
 * (a default, a transform, a coercion, a key an object strips, a `__proto__` member, a refinement
 * of an object or array, a schema kind not known here): the caller then parses with zod, which
 * also names what is wrong. Leaf values (strings, numbers, booleans, enums, literals) are judged
 * by zod's own checks, formats included. Pure; each schema's checker is built once.
 * @example acceptedAsIs(z.looseObject({ Id: z.guid() }), JSON.parse(text)) // then use the parsed JSON
 */
export function acceptedAsIs(schema: z.ZodType, value: unknown): boolean {
  try {
    return checkerOf(schema)(value);
  } catch {
    return false;
  }
}

function checkerOf(schema: z.ZodType): AsIs {
  let checker = checkers.get(schema);
  if (checker === undefined) {
    // A schema reached again while its checker is built (a recursive one) is not known here.
    checkers.set(schema, never);
    checker = buildChecker(internalsOf(schema));
    checkers.set(schema, checker);
  }
  return checker;
}

/** Whether checks or a refinement are attached to the schema itself. */
function isRefined(zod: SchemaInternals): boolean {
  return (zod.def.checks?.length ?? 0) > 0 || zod.traits.has('$ZodCheck');
}

function buildChecker(zod: SchemaInternals): AsIs {
  const { def } = zod;
  const refined = isRefined(zod);
  switch (def.type) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'enum':
    case 'literal':
      return def.coerce ? never : leafChecker(zod, refined);
    case 'unknown':
    case 'any':
      return refined ? never : () => true;
    case 'optional':
      return refined ||
        zod.traits.has('$ZodExactOptional') ||
        internalsOf(def.innerType!).optin === 'defaulted'
        ? never
        : wrapped(undefined, checkerOf(def.innerType!));
    case 'nullable':
      return refined ? never : wrapped(null, checkerOf(def.innerType!));
    case 'array':
      return refined ? never : arrayChecker(checkerOf(def.element!));
    case 'object':
      return refined ? never : objectChecker(def.shape ?? {}, def.catchall);
    default:
      return never;
  }
}

/** A primitive schema: its type alone where nothing refines it, else zod's own run of it. */
function leafChecker(zod: SchemaInternals, refined: boolean): AsIs {
  if (!refined) {
    switch (zod.def.type) {
      case 'string':
        return (value) => typeof value === 'string';
      case 'boolean':
        return (value) => typeof value === 'boolean';
      case 'number':
        return (value) => typeof value === 'number' && Number.isFinite(value);
      case 'enum': {
        const values = zod.values;
        if (values !== undefined) return (value) => values.has(value);
      }
    }
  }
  return (value) => {
    const result = zod.run({ value, issues: [] }, SYNC);
    return !(result instanceof Promise) && result.issues.length === 0 && result.value === value;
  };
}

function wrapped(passes: null | undefined, inner: AsIs): AsIs {
  return (value) => value === passes || inner(value);
}

function arrayChecker(element: AsIs): AsIs {
  return (value) => {
    if (!Array.isArray(value)) return false;
    for (const item of value) if (!element(item)) return false;
    return true;
  };
}

/**
 * An object: every member of the shape taken as it is, or absent where the member may be left
 * out (zod then leaves it out too); members beyond the shape only where the object keeps them
 * as they are (a loose object: its catch-all `unknown`), never `__proto__` (zod drops it).
 */
function objectChecker(shape: Record<string, z.ZodType>, catchall: z.ZodType | undefined): AsIs {
  if (Object.hasOwn(shape, '__proto__')) return never;
  const members = Object.keys(shape).map((key) => {
    const zod = internalsOf(shape[key]!);
    return {
      key,
      asIs: checkerOf(shape[key]!),
      omittable: zod.optin === 'optional' && zod.optout === 'optional',
    };
  });
  const known = new Set(Object.keys(shape));
  let keepsOthers: boolean;
  if (catchall === undefined) keepsOthers = false;
  else if (keepsEveryMember(internalsOf(catchall))) keepsOthers = true;
  else return never;
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const object = value as Record<string, unknown>;
    for (const { key, asIs, omittable } of members) {
      // As zod reads a member: `in`, then the value.
      if (!(key in object)) {
        if (omittable) continue;
        return false;
      }
      if (!asIs(object[key])) return false;
    }
    for (const key in object) {
      if (known.has(key)) continue;
      // A stripped member, or one zod leaves out of its copy.
      if (!keepsOthers || key === '__proto__') return false;
    }
    return true;
  };
}

/** Whether a catch-all keeps every other member as it is (`unknown` or `any`, unrefined). */
function keepsEveryMember(zod: SchemaInternals): boolean {
  return (zod.def.type === 'unknown' || zod.def.type === 'any') && !isRefined(zod);
}
