import { z } from 'zod';

/**
 * An environment variable's schema where an empty value means unset (CloudFormation and shells
 * set a variable to `''` rather than leave it out). Pure.
 * @example optionalVariable(z.string().min(1)).parse('') === undefined
 */
export function optionalVariable<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === '' ? undefined : value), schema.optional());
}

/**
 * A variable's whole number in decimal digits (`128`), then checked by `number`: coercion took
 * `0x10` for 16, `1e3` for 1000 and ` 8` for 8. Pure.
 * @example wholeNumberVariable(z.number().min(1)).parse('16') === 16
 */
export function wholeNumberVariable(number: z.ZodNumber) {
  return z
    .string()
    .regex(/^\d+$/, { error: 'must be a whole number in decimal digits' })
    .transform(Number)
    .pipe(number);
}
