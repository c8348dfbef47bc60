import { z } from 'zod';
import {
  ActivityStateSchema,
  LimitationSchema,
  TimeFilterIntervalSchema,
  UuidSchema,
} from '../records/common.ts';
import { CustomerSchema, IdentityDocumentSchema } from '../records/customer.ts';
import { idFilter, PageCursorSchema, requireSomeFilter, stringFilter } from './filters.ts';

/**
 * The filters of customers/getAll; CustomerIds is required when none of the others is given.
 * ChainIds counts only for a Portfolio Access Token: another token's is ignored (see
 * readByOrdinaryToken).
 */
export const CUSTOMER_FILTERS = [
  'CustomerIds',
  'CreatedUtc',
  'UpdatedUtc',
  'DeletedUtc',
  'CompanyIds',
  'Emails',
  'FirstNames',
  'LastNames',
  'LoyaltyCodes',
  'ChainIds',
] as const;

/** Request of customers/getAll (without the envelope). */
export const CustomersGetAllRequestSchema = z
  .strictObject({
    Limitation: LimitationSchema,
    Extent: z.strictObject({
      Customers: z.boolean().nullable().optional(),
      Documents: z.boolean().nullable().optional(),
      Addresses: z.boolean().nullable().optional(),
    }),
    // Required with Portfolio Access Tokens (the client adds it), ignored otherwise.
    ChainIds: idFilter().optional(),
    CreatedUtc: TimeFilterIntervalSchema.optional(),
    UpdatedUtc: TimeFilterIntervalSchema.optional(),
    // ActivityStates must contain Deleted for expected results.
    DeletedUtc: TimeFilterIntervalSchema.optional(),
    ActivityStates: z.array(ActivityStateSchema).optional(),
    CustomerIds: idFilter().optional(),
    CompanyIds: z.array(UuidSchema).min(1).max(1).optional(),
    Emails: stringFilter().optional(),
    FirstNames: stringFilter().optional(),
    LastNames: stringFilter().optional(),
    LoyaltyCodes: stringFilter().optional(),
  })
  .superRefine(
    requireSomeFilter('CustomerIds', CUSTOMER_FILTERS, {
      // An ordinary token's ChainIds is ignored, so it spares CustomerIds only with this one.
      ChainIds: 'ChainIds with a Portfolio Access Token',
    }),
  );
/** Request of customers/getAll. */
export type CustomersGetAllRequest = z.input<typeof CustomersGetAllRequestSchema>;

/** Response of customers/getAll. */
export const CustomersGetAllResponseSchema = z.looseObject({
  Customers: z.array(CustomerSchema),
  Documents: z.array(IdentityDocumentSchema).nullable().optional(),
  Cursor: PageCursorSchema,
});
/** Response of customers/getAll. */
export type CustomersGetAllResponse = z.infer<typeof CustomersGetAllResponseSchema>;
