import { z } from 'zod';
import { TaxEnvironmentSchema } from '../records/tax-environment.ts';

/** Request of taxEnvironments/getAll: the envelope only, so nothing else is allowed. */
export const TaxEnvironmentsGetAllRequestSchema = z.strictObject({});
/** Request of taxEnvironments/getAll. */
export type TaxEnvironmentsGetAllRequest = z.input<typeof TaxEnvironmentsGetAllRequestSchema>;

/** Response of taxEnvironments/getAll: the supported tax environments. */
export const TaxEnvironmentsGetAllResponseSchema = z.looseObject({
  TaxEnvironments: z.array(TaxEnvironmentSchema),
});
/** Response of taxEnvironments/getAll. */
export type TaxEnvironmentsGetAllResponse = z.infer<typeof TaxEnvironmentsGetAllResponseSchema>;
