import { z } from 'zod';

/**
 * An environment variable's schema where an empty value means unset (CloudFormation and shells
 * set a variable to `''` rather than leave it out). Pure.
 * @example optionalVariable(z.string().min(1)).parse('') === undefined
 */
export function optionalVariable<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === '' ? undefined : value), schema.optional());
}
