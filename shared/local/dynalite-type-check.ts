import { requireFromDynalite } from './dynalite-require.ts';

/**
 * A type as dynalite's validations write it: a name (`'String'`, `'Map<AttributeValue>'`,
 * `'AttrStruct<ValueStruct>'`) or an object with `type` and, for containers, `children`.
 */
type TypeSpec = string | { type?: string; children?: unknown };

/** A request's fields as dynalite checks them: a JSON object (mutated: unknown fields go). */
type Fields = Record<string, unknown>;

/** What dynalite's `checkTypes` does: validates and converts a request's JSON types. */
export type CheckTypes = (data: Fields, types: Record<string, TypeSpec>) => Fields;

/** A type spec taken apart once: its kind, its `<subtype>` and its children. */
interface ParsedType {
  kind: string;
  subtype: string | undefined;
  children: unknown;
  /** For `AttrStruct<X>`: the `X<AttributeValue>` map of attribute value members it stands for. */
  attributeValue?: TypeSpec;
}

/** The members of an attribute value, as dynalite (4.0) spells them for `AttrStruct<X>`. */
const ATTRIBUTE_VALUE_MEMBERS = {
  S: 'String',
  B: 'Blob',
  N: 'String',
  BOOL: 'Boolean',
  NULL: 'Boolean',
  BS: { type: 'List', children: 'Blob' },
  NS: { type: 'List', children: 'String' },
  SS: { type: 'List', children: 'String' },
  L: { type: 'List', children: 'AttrStruct<ValueStruct>' },
  M: { type: 'Map<AttributeValue>', children: 'AttrStruct<ValueStruct>' },
};

const parsedNames = new Map<string, ParsedType>();
const parsedObjects = new WeakMap<object, ParsedType>();

/** {@link TypeSpec} taken apart as dynalite does on every value, once per spec. */
function parseType(spec: TypeSpec): ParsedType {
  const known = typeof spec === 'string' ? parsedNames.get(spec) : parsedObjects.get(spec);
  if (known) return known;
  let children = typeof spec === 'string' ? undefined : spec.children;
  if (typeof children === 'string') children = { type: children };
  const name = (typeof spec === 'string' ? spec : spec.type || spec) as string;
  const match = name.match(/(.+?)<(.+)>$/);
  const parsed: ParsedType = {
    kind: match ? match[1]! : name,
    subtype: match ? match[2] : undefined,
    children,
  };
  if (parsed.kind === 'AttrStruct') {
    parsed.attributeValue = {
      type: `${parsed.subtype}<AttributeValue>`,
      children: ATTRIBUTE_VALUE_MEMBERS,
    };
  }
  if (typeof spec === 'string') parsedNames.set(spec, parsed);
  else parsedObjects.set(spec, parsed);
  return parsed;
}

/** dynalite's error for JSON of the wrong type (a SerializationException, HTTP 400). */
function typeError(message: string): Error {
  return Object.assign(new Error(message), {
    statusCode: 400,
    body: { __type: 'com.amazon.coral.service#SerializationException', Message: message },
  });
}

function structureFound(val: object, collection: string): never {
  if (Array.isArray(val)) throw typeError(`Unrecognized collection type ${collection}`);
  throw typeError('Start of structure or map found where not expected');
}

function checkScalar(val: unknown, kind: string): unknown {
  switch (kind) {
    case 'Boolean':
      switch (typeof val) {
        case 'number':
          throw typeError(
            `${val % 1 === 0 ? 'NUMBER_VALUE' : 'DECIMAL_VALUE'} cannot be converted to ${kind}`,
          );
        case 'string': {
          // 'true'/'false'/'1'/'0'/'no'/'yes' convert, as in DynamoDB.
          const upper = val.toUpperCase();
          if (['TRUE', '1', 'YES'].includes(upper)) return true;
          if (['FALSE', '0', 'NO'].includes(upper)) return false;
          throw typeError('Unexpected token received from parser');
        }
        case 'object':
          return structureFound(val as object, `class java.lang.${kind}`);
      }
      return val;
    case 'Short':
    case 'Integer':
    case 'Long':
    case 'Double':
      switch (typeof val) {
        case 'boolean':
          throw typeError(`${val ? 'TRUE_VALUE' : 'FALSE_VALUE'} cannot be converted to ${kind}`);
        case 'number':
          return kind === 'Double' ? val : Math.floor(val);
        case 'string':
          throw typeError(`STRING_VALUE cannot be converted to ${kind}`);
        case 'object':
          return structureFound(val as object, `class java.lang.${kind}`);
      }
      return val;
    case 'String':
      switch (typeof val) {
        case 'boolean':
          throw typeError(`${val ? 'TRUE_VALUE' : 'FALSE_VALUE'} cannot be converted to ${kind}`);
        case 'number':
          throw typeError(
            `${val % 1 === 0 ? 'NUMBER_VALUE' : 'DECIMAL_VALUE'} cannot be converted to ${kind}`,
          );
        case 'object':
          return structureFound(val as object, `class java.lang.${kind}`);
      }
      return val;
    case 'Blob': {
      switch (typeof val) {
        case 'boolean':
        case 'number':
          throw typeError('only base-64-encoded strings are convertible to bytes');
        case 'object':
          return structureFound(val as object, 'class java.nio.ByteBuffer');
      }
      const text = val as string;
      if (text.length % 4)
        throw typeError(
          `Base64 encoded length is expected a multiple of 4 bytes but found: ${text.length}`,
        );
      if (Buffer.from(text, 'base64').toString('base64') !== text)
        throw typeError('Invalid last non-pad Base64 character dectected');
      return text;
    }
    default:
      throw new Error(`Unknown type: ${kind}`);
  }
}

const PARAMETERIZED_CAST =
  "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to class java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and java.lang.Class are in module java.base of loader 'bootstrap')";

function checkType(val: unknown, spec: TypeSpec): unknown {
  if (val == null) return null;
  const type = parseType(spec);
  if (type.attributeValue) return checkType(val, type.attributeValue);
  const { kind, subtype } = type;
  const children = type.children as TypeSpec;
  const scalar = typeof val !== 'object';
  switch (kind) {
    case 'List':
    case 'ParameterizedList': {
      if (scalar) throw typeError(kind === 'List' ? 'Unexpected field type' : PARAMETERIZED_CAST);
      if (!Array.isArray(val))
        throw typeError('Start of structure or map found where not expected');
      const list = new Array<unknown>(val.length);
      for (let i = 0; i < val.length; i++) list[i] = checkType(val[i], children);
      return list;
    }
    case 'ParameterizedMap':
    case 'Map': {
      if (scalar) throw typeError(kind === 'Map' ? 'Unexpected field type' : PARAMETERIZED_CAST);
      if (Array.isArray(val)) {
        throw typeError(
          kind === 'Map'
            ? `Unrecognized collection type java.util.Map<java.lang.String, ${subtype?.includes('.') ? subtype : `com.amazonaws.dynamodb.v20120810.${subtype}`}>`
            : 'Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>',
        );
      }
      const map: Fields = {};
      for (const key of Object.keys(val as object)) {
        map[key] = checkType((val as Fields)[key], children);
      }
      return map;
    }
    case 'ValueStruct':
    case 'FieldStruct':
      if (scalar)
        throw typeError(
          kind === 'ValueStruct' ? 'Unexpected value type in payload' : 'Unexpected field type',
        );
      if (Array.isArray(val))
        throw typeError(
          `Unrecognized collection type class com.amazonaws.dynamodb.v20120810.${subtype}`,
        );
      return fastCheckTypes(val as Fields, children as unknown as Record<string, TypeSpec>);
    default:
      return checkScalar(val, kind);
  }
}

/**
 * dynalite's `checkTypes` (4.0, validations/index.js), the same checks, conversions, errors and
 * result, without its per-value work: dynalite parses each type's name with a regular
 * expression and rebuilds the attribute value's member list for every value of every request
 * (a third of the memory a local run allocated in its store). Each type spec is parsed once here.
 * Like the original, deletes `data`'s fields that `types` does not name or that are null.
 */
export function fastCheckTypes(data: Fields, types: Record<string, TypeSpec>): Fields {
  for (const key in data) {
    if (!types[key] || data[key] == null) delete data[key];
  }
  const checked: Fields = {};
  for (const key of Object.keys(types)) {
    const val = checkType(data[key], types[key]!);
    if (val != null) checked[key] = val;
  }
  return checked;
}

/** dynalite's validations module, the copy its request handler calls through. */
interface DynaliteValidations {
  checkTypes: CheckTypes;
  [original]?: CheckTypes;
}

const original = Symbol.for('change-bridge.dynaliteCheckTypes');

function dynaliteValidations(): DynaliteValidations {
  return requireFromDynalite('./validations') as DynaliteValidations;
}

/** dynalite's own `checkTypes`, whether or not {@link parseDynaliteTypesOnce} replaced it. */
export function dynaliteCheckTypes(): CheckTypes {
  const validations = dynaliteValidations();
  return validations[original] ?? validations.checkTypes;
}

/**
 * Makes dynalite's request handler check JSON types with {@link fastCheckTypes}. Idempotent.
 */
export function parseDynaliteTypesOnce(): void {
  const validations = dynaliteValidations();
  if (validations[original]) return;
  validations[original] = validations.checkTypes;
  validations.checkTypes = fastCheckTypes;
}
