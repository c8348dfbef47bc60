import { z } from 'zod';
import { AccountingCategorySchema } from '../records/accounting-category.ts';
import {
  ActivityStateSchema,
  LimitationSchema,
  TimeFilterIntervalSchema,
} from '../records/common.ts';
import { idFilter, PageCursorSchema } from './filters.ts';

/**
 * Request of accountingCategories/getAll (without the envelope). The contract shows no
 * markers here: Limitation is required as on every paginated operation, filters are optional
 * and bounded like all list filters.
 */
export const AccountingCategoriesGetAllRequestSchema = z.strictObject({
  Limitation: LimitationSchema,
  EnterpriseIds: idFilter().optional(),
  AccountingCategoryIds: idFilter().optional(),
  UpdatedUtc: TimeFilterIntervalSchema.optional(),
  ActivityStates: z.array(ActivityStateSchema).optional(),
});
/** Request of accountingCategories/getAll. */
export type AccountingCategoriesGetAllRequest = z.input<
  typeof AccountingCategoriesGetAllRequestSchema
>;

/** Response of accountingCategories/getAll. */
export const AccountingCategoriesGetAllResponseSchema = z.looseObject({
  AccountingCategories: z.array(AccountingCategorySchema),
  Cursor: PageCursorSchema,
});
/** Response of accountingCategories/getAll. */
export type AccountingCategoriesGetAllResponse = z.infer<
  typeof AccountingCategoriesGetAllResponseSchema
>;
