/**
 * The JSON text dynalite stores for a document item (DynamoDB's attribute values, binaries as
 * base64), written straight from the item: what `JSON.stringify` of util-dynamodb's `marshall`
 * (undefined members removed, binaries as base64) gives, without building the marshalled
 * objects. Takes strings, booleans, null, numbers (within what marshall and dynalite take),
 * bytes, arrays and plain objects of them; anything else (a Set, a bigint, a class instance, a
 * member named `__proto__` or `constructor`) answers undefined, for the SDK's marshalling to
 * handle as it does. Pure.
 * @example dynaliteItemJson({ pk: 'a', n: 1 }) === '{"pk":{"S":"a"},"n":{"N":"1"}}'
 */
export function dynaliteItemJson(item: Record<string, unknown>): string | undefined {
  return membersJson(item);
}

/** Bytes as base64, as DynamoDB's JSON (and dynalite's store) holds a binary; not copied first. */
export function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** `{"name":<attribute value>,…}` of an object's defined members; undefined if one is not taken. */
function membersJson(members: Record<string, unknown>): string | undefined {
  // marshall tells a value's type by its `constructor`: an object with a member of that name
  // is refused there, or taken for another type.
  if (Object.hasOwn(members, 'constructor')) return undefined;
  let json = '{';
  for (const name in members) {
    if (!Object.hasOwn(members, name)) continue;
    const value = members[name];
    if (value === undefined) continue;
    // marshall's map would take a member of this name as its prototype, and so drop it.
    if (name === '__proto__') return undefined;
    const attribute = attributeJson(value);
    if (attribute === undefined) return undefined;
    json += `${json.length > 1 ? ',' : ''}${JSON.stringify(name)}:${attribute}`;
  }
  return `${json}}`;
}

/**
 * A number's attribute value, or undefined where marshall or dynalite would make another of it:
 * marshall refuses NaN, the infinities and magnitudes past Number.MAX_SAFE_INTEGER, and writes
 * the rest as `String` does; dynalite stores that text in big.js's plain notation, which is
 * `String`'s own but where `String` uses an exponent (below 1e-6).
 */
function numberJson(value: number): string | undefined {
  const text = String(value);
  return Math.abs(value) <= Number.MAX_SAFE_INTEGER && !text.includes('e')
    ? `{"N":"${text}"}`
    : undefined;
}

/** One attribute value's JSON (`{"S":"…"}`, `{"N":"…"}`, …); undefined for a value not taken. */
function attributeJson(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return `{"S":${JSON.stringify(value)}}`;
    case 'boolean':
      return `{"BOOL":${value}}`;
    case 'number':
      return numberJson(value);
    case 'object':
      return objectJson(value);
    default:
      return undefined;
  }
}

function objectJson(value: object | null): string | undefined {
  if (value === null) return '{"NULL":true}';
  if (value instanceof Uint8Array) return `{"B":"${base64Of(value)}"}`;
  if (Array.isArray(value)) {
    const members: string[] = [];
    for (const member of value) {
      if (member === undefined) continue;
      const attribute = attributeJson(member);
      if (attribute === undefined) return undefined;
      members.push(attribute);
    }
    return `{"L":[${members.join(',')}]}`;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const members = membersJson(value as Record<string, unknown>);
  return members === undefined ? undefined : `{"M":${members}}`;
}
