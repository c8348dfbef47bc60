/**
 * A small JSON Schema (2020-12) checker for exactly the keywords `z.toJSONSchema` emits in
 * the event catalogue. Test-only: no validator package is installed. An unknown keyword
 * throws, so a schema can never pass by being misunderstood.
 */
type Schema = Record<string, unknown> | boolean;

const IGNORED = new Set(['$schema', 'title', 'description']);
const FORMATS: Record<string, RegExp> = {
  'date-time': /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/,
  date: /^\d{4}-\d\d-\d\d$/,
  uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
  uri: /^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/,
};

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  if (type === 'integer') return Number.isInteger(value);
  return typeOf(value) === type;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeOf(value) === 'object';
}

function asSchema(value: unknown): Schema {
  if (typeof value === 'boolean' || isObject(value)) return value;
  throw new Error(`not a schema: ${JSON.stringify(value)}`);
}

function asList(value: unknown): unknown[] {
  if (!Array.isArray(value))
    throw new Error(`expected an array in the schema, got ${typeOf(value)}`);
  return value;
}

/** Returns the JSON Pointer paths where `value` breaks `schema` (empty when it conforms). */
export function checkJsonSchema(schema: Schema, value: unknown, path = ''): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${path}: not allowed`];
  const errors: string[] = [];
  const fail = (message: string) => errors.push(`${path || '/'}: ${message}`);
  for (const [keyword, rule] of Object.entries(schema)) {
    if (IGNORED.has(keyword)) continue;
    switch (keyword) {
      case 'type': {
        const types = Array.isArray(rule) ? rule : [rule];
        if (!types.some((type) => matchesType(value, String(type)))) fail(`not ${types.join('|')}`);
        break;
      }
      case 'const':
        if (JSON.stringify(value) !== JSON.stringify(rule)) fail(`not ${JSON.stringify(rule)}`);
        break;
      case 'enum':
        if (!asList(rule).some((item) => JSON.stringify(item) === JSON.stringify(value)))
          fail('not in enum');
        break;
      case 'pattern':
        if (typeof value === 'string' && !new RegExp(String(rule)).test(value))
          fail(`does not match ${rule}`);
        break;
      case 'format': {
        const format = FORMATS[String(rule)];
        if (!format) throw new Error(`unknown format ${String(rule)}`);
        if (typeof value === 'string' && !format.test(value)) fail(`not a ${rule}`);
        break;
      }
      case 'minLength':
      case 'maxLength':
        if (typeof value === 'string') {
          const length = [...value].length;
          if (keyword === 'minLength' ? length < Number(rule) : length > Number(rule))
            fail(`${keyword} ${rule}`);
        }
        break;
      case 'minimum':
      case 'maximum':
        if (
          typeof value === 'number' &&
          (keyword === 'minimum' ? value < Number(rule) : value > Number(rule))
        )
          fail(`${keyword} ${rule}`);
        break;
      case 'maxItems':
        if (Array.isArray(value) && value.length > Number(rule)) fail(`maxItems ${rule}`);
        break;
      case 'items':
        if (Array.isArray(value))
          value.forEach((item, index) => {
            errors.push(...checkJsonSchema(asSchema(rule), item, `${path}/${index}`));
          });
        break;
      case 'required':
        if (isObject(value))
          for (const key of asList(rule))
            if (!(String(key) in value)) fail(`missing ${String(key)}`);
        break;
      case 'properties':
        if (isObject(value) && isObject(rule))
          for (const [key, sub] of Object.entries(rule))
            if (key in value)
              errors.push(...checkJsonSchema(asSchema(sub), value[key], `${path}/${key}`));
        break;
      case 'additionalProperties':
        if (isObject(value)) {
          const known = isObject(schema.properties) ? Object.keys(schema.properties) : [];
          for (const [key, item] of Object.entries(value))
            if (!known.includes(key))
              errors.push(...checkJsonSchema(asSchema(rule), item, `${path}/${key}`));
        }
        break;
      case 'propertyNames':
        if (isObject(value))
          for (const key of Object.keys(value))
            errors.push(...checkJsonSchema(asSchema(rule), key, `${path}/${key}(name)`));
        break;
      case 'anyOf':
        if (!asList(rule).some((sub) => checkJsonSchema(asSchema(sub), value, path).length === 0))
          fail('matches no anyOf branch');
        break;
      case 'oneOf': {
        const matches = asList(rule).filter(
          (sub) => checkJsonSchema(asSchema(sub), value, path).length === 0,
        ).length;
        if (matches !== 1) fail(`matches ${matches} oneOf branches`);
        break;
      }
      default:
        throw new Error(`the test checker does not know the keyword ${keyword}`);
    }
  }
  return errors;
}
