import { z } from 'zod';
import { DateTimeSchema, LocalizedTextSchema, UuidSchema } from './common.ts';

/** A product category of a service. */
export const ProductCategorySchema = z.looseObject({
  Id: UuidSchema,
  EnterpriseId: UuidSchema,
  ServiceId: UuidSchema,
  Names: LocalizedTextSchema,
  ShortNames: LocalizedTextSchema,
  Descriptions: LocalizedTextSchema,
  // Present when a parent is set; absent and null both mean "no parent".
  ParentProductCategory: z
    .looseObject({ Id: UuidSchema, Names: LocalizedTextSchema })
    .nullable()
    .optional(),
  UpdatedUtc: DateTimeSchema,
  CreatedUtc: DateTimeSchema,
  // Neither unique nor continuous: only the order means something.
  Ordering: z.number().int(),
});
/** A product category of a service. */
export type ProductCategory = z.infer<typeof ProductCategorySchema>;
