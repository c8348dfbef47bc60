import { z } from 'zod';
import { BillingAutomationSchema } from '../records/billing-automation.ts';
import { LimitationSchema } from '../records/common.ts';
import { idFilter, PageCursorSchema } from './filters.ts';

/** Most items of the billing automation filters CompanyIds and BillingAutomationIds. */
export const BILLING_FILTER_MAX_ITEMS = 100;
/** Most billing automations one response holds. */
export const BILLING_AUTOMATIONS_MAX_ITEMS = 1000;

/** Request of billingAutomations/getAll (without the envelope). There is no time filter. */
export const BillingAutomationsGetAllRequestSchema = z.strictObject({
  Limitation: LimitationSchema,
  EnterpriseIds: idFilter().optional(),
  CompanyIds: idFilter(BILLING_FILTER_MAX_ITEMS).optional(),
  BillingAutomationIds: idFilter(BILLING_FILTER_MAX_ITEMS).optional(),
});
/** Request of billingAutomations/getAll. */
export type BillingAutomationsGetAllRequest = z.input<typeof BillingAutomationsGetAllRequestSchema>;

/** Response of billingAutomations/getAll; Cursor is the id of the last returned automation. */
export const BillingAutomationsGetAllResponseSchema = z.looseObject({
  BillingAutomations: z
    .array(BillingAutomationSchema)
    .max(BILLING_AUTOMATIONS_MAX_ITEMS)
    .nullable()
    .optional(),
  Cursor: PageCursorSchema,
});
/** Response of billingAutomations/getAll. */
export type BillingAutomationsGetAllResponse = z.infer<
  typeof BillingAutomationsGetAllResponseSchema
>;
