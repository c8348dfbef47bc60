/**
 * Whether `value` is a JSON object: an object that is neither null nor an array. Pure.
 * @example isJsonObject({ a: 1 }) === true; isJsonObject([1]) === false
 */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
