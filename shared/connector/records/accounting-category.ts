import { z } from 'zod';
import { DateTimeSchema, UuidSchema } from './common.ts';

/** Accounting category classifications. */
export const AccountingCategoryClassificationSchema = z.enum([
  'Accommodation',
  'FoodAndBeverage',
  'Taxes',
  'Payments',
  'ExternalRevenue',
  'SundryIncome',
  'Wellness',
  'Sport',
  'Technology',
  'Facilities',
  'Events',
  'Tourism',
]);
/** Accounting category classification. */
export type AccountingCategoryClassification = z.infer<
  typeof AccountingCategoryClassificationSchema
>;

/**
 * An accounting category of an enterprise. The contract gives no required markers here:
 * fields typed without "nullable" are required, `Classification` may be null.
 */
export const AccountingCategorySchema = z.looseObject({
  Id: UuidSchema,
  EnterpriseId: UuidSchema,
  IsActive: z.boolean(),
  Name: z.string(),
  Code: z.string(),
  ExternalCode: z.string(),
  LedgerAccountCode: z.string(),
  PostingAccountCode: z.string(),
  CostCenterCode: z.string(),
  Classification: AccountingCategoryClassificationSchema.nullable().optional(),
  CreatedUtc: DateTimeSchema,
  UpdatedUtc: DateTimeSchema,
});
/** An accounting category of an enterprise. */
export type AccountingCategory = z.infer<typeof AccountingCategorySchema>;
