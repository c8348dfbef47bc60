import { z } from 'zod';
import { LimitationSchema, TimeFilterIntervalSchema } from '../records/common.ts';
import { PaymentRequestSchema, PaymentRequestStateSchema } from '../records/payment-request.ts';
import { FILTER_MAX_ITEMS, idFilter, PageCursorSchema } from './filters.ts';

/** Request of paymentRequests/getAll (without the envelope). */
export const PaymentRequestsGetAllRequestSchema = z.strictObject({
  Limitation: LimitationSchema,
  EnterpriseIds: idFilter().optional(),
  PaymentRequestIds: idFilter().optional(),
  // Customer accounts.
  AccountIds: idFilter().optional(),
  ReservationIds: idFilter().optional(),
  UpdatedUtc: TimeFilterIntervalSchema.optional(),
  States: z.array(PaymentRequestStateSchema).optional(),
});
/** Request of paymentRequests/getAll. */
export type PaymentRequestsGetAllRequest = z.input<typeof PaymentRequestsGetAllRequestSchema>;

/** Response of paymentRequests/getAll (at most 1000 payment requests). */
export const PaymentRequestsGetAllResponseSchema = z.looseObject({
  PaymentRequests: z.array(PaymentRequestSchema).max(FILTER_MAX_ITEMS),
  Cursor: PageCursorSchema,
});
/** Response of paymentRequests/getAll. */
export type PaymentRequestsGetAllResponse = z.infer<typeof PaymentRequestsGetAllResponseSchema>;
