import { z } from 'zod';
import { DateTimeSchema, UuidSchema } from './common.ts';

/** One downloadable file of an export, in JSON Lines format. */
export const ExportFileSchema = z.looseObject({
  Url: z.string(),
  SizeInBytes: z.number().int().nonnegative(),
});
/** One downloadable file of an export. */
export type ExportFile = z.infer<typeof ExportFileSchema>;

/**
 * A bulk export. Status (seen: Success, Pending, Processing, Expired) and EntityType
 * (seen: OrderItem) are plain strings: the complete value sets are not shown.
 */
export const ExportSchema = z.looseObject({
  Id: UuidSchema,
  Status: z.string(),
  EntityType: z.string(),
  Files: z.array(ExportFileSchema),
  ExpiresUtc: DateTimeSchema.nullable().optional(),
});
/** A bulk export. */
export type Export = z.infer<typeof ExportSchema>;
