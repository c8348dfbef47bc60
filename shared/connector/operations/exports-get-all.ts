import { z } from 'zod';
import { ExportSchema } from '../records/export.ts';
import { idFilter } from './filters.ts';

/** Request of exports/getAll (without the envelope). */
export const ExportsGetAllRequestSchema = z.strictObject({
  ExportIds: idFilter(),
});
/** Request of exports/getAll. */
export type ExportsGetAllRequest = z.input<typeof ExportsGetAllRequestSchema>;

/** Response of exports/getAll. */
export const ExportsGetAllResponseSchema = z.looseObject({
  Exports: z.array(ExportSchema),
});
/** Response of exports/getAll. */
export type ExportsGetAllResponse = z.infer<typeof ExportsGetAllResponseSchema>;
