import type { z } from 'zod';
import { isJsonObject } from '../json-object.ts';

/** The parts of a zod schema's definition that tell where a request holds GUIDs. */
interface SchemaDef {
  type: string;
  format?: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  options?: readonly z.ZodType[];
}

function defOf(schema: z.ZodType): SchemaDef {
  return (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
}

/** True when `schema` (or one member of a union) is a GUID string (UuidSchema). */
function takesGuid(schema: z.ZodType): boolean {
  const def = defOf(schema);
  if (def.type === 'string') return def.format === 'guid';
  if (def.type === 'union') return (def.options ?? []).some(takesGuid);
  return false;
}

/**
 * `value` with every GUID that `schema` types as one (UuidSchema, in objects, arrays, optional,
 * nullable and union wrappers) in lower case, as the simulator's records hold them: the service
 * reads a GUID whatever the case of its hex digits, as .NET parses one, so `6F8B…` names the
 * record `6f8b…`. Free text (names, notes, codes) is left as it is. Call it on a value `schema`
 * accepted. Pure.
 * @example lowercaseGuids(z.object({ Id: UuidSchema }), { Id: 'AB…' }) // { Id: 'ab…' }
 */
export function lowercaseGuids(schema: z.ZodType, value: unknown): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
      return def.innerType ? lowercaseGuids(def.innerType, value) : value;
    case 'array':
      return Array.isArray(value) && def.element
        ? value.map((item) => lowercaseGuids(def.element as z.ZodType, item))
        : value;
    case 'object': {
      if (!isJsonObject(value) || !def.shape) return value;
      const shape = def.shape;
      return Object.fromEntries(
        Object.entries(value).map(([key, field]) => [
          key,
          Object.hasOwn(shape, key) ? lowercaseGuids(shape[key] as z.ZodType, field) : field,
        ]),
      );
    }
    case 'union':
      if (typeof value === 'string' && takesGuid(schema)) return value.toLowerCase();
      if (!isJsonObject(value) && !Array.isArray(value)) return value;
      // Objects in a union: the first member that accepts the value tells its GUIDs.
      for (const option of def.options ?? []) {
        if (option.safeParse(value).success) return lowercaseGuids(option, value);
      }
      return value;
    default:
      return typeof value === 'string' && takesGuid(schema) ? value.toLowerCase() : value;
  }
}
