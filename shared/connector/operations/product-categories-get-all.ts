import { z } from 'zod';
import { LimitationSchema, TimeFilterIntervalSchema } from '../records/common.ts';
import { ProductCategorySchema } from '../records/product-category.ts';
import { idFilter, PageCursorSchema } from './filters.ts';

/**
 * Request of productCategories/getAll (without the envelope). No markers are shown:
 * Limitation is required as on every paginated operation, filters are optional.
 */
export const ProductCategoriesGetAllRequestSchema = z.strictObject({
  Limitation: LimitationSchema,
  EnterpriseIds: idFilter().optional(),
  ProductCategoryIds: idFilter().optional(),
  ServiceIds: idFilter().optional(),
  UpdatedUtc: TimeFilterIntervalSchema.optional(),
});
/** Request of productCategories/getAll. */
export type ProductCategoriesGetAllRequest = z.input<typeof ProductCategoriesGetAllRequestSchema>;

/** Response of productCategories/getAll; Cursor is the id of the last returned category. */
export const ProductCategoriesGetAllResponseSchema = z.looseObject({
  ProductCategories: z.array(ProductCategorySchema),
  Cursor: PageCursorSchema,
});
/** Response of productCategories/getAll. */
export type ProductCategoriesGetAllResponse = z.infer<typeof ProductCategoriesGetAllResponseSchema>;
