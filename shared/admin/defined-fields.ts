/**
 * The fields of `fields` that are not `undefined`, in their order: a field left out lets the
 * service apply its own default, where one given as `undefined` would not. Pure.
 * @example definedFields({ type: 'customer.created', limit: undefined }) // { type: 'customer.created' }
 */
export function definedFields(fields: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
