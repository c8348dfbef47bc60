import { z } from 'zod';
import { DateTimeSchema } from './common.ts';

/**
 * A supported tax environment. Only the named fields are modelled: the nesting of its
 * taxations and tax rates is not shown, so the loose object carries them as they come.
 */
export const TaxEnvironmentSchema = z.looseObject({
  Code: z.string().min(1),
  // ISO 3166-1 alpha-3.
  CountryCode: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 3166-1 alpha-3 code'),
  TaxationCodes: z.array(z.string()),
  ValidityStartUtc: DateTimeSchema.nullable().optional(),
  ValidityEndUtc: DateTimeSchema.nullable().optional(),
});
/** A supported tax environment. */
export type TaxEnvironment = z.infer<typeof TaxEnvironmentSchema>;
