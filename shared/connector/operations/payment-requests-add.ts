import { z } from 'zod';
import { CurrencyCodeSchema, DateTimeSchema, UuidSchema } from '../records/common.ts';
import {
  PAYMENT_REQUEST_TEXT_MAX_CHARS,
  PaymentRequestReasonSchema,
  PaymentRequestSchema,
  PaymentRequestTypeSchema,
} from '../records/payment-request.ts';
import { OptionalCursorSchema } from './filters.ts';

/** One payment request to create. */
export const NewPaymentRequestSchema = z.strictObject({
  AccountId: UuidSchema,
  // An absolute value: the sign is given by Type, never by the number.
  Amount: z.strictObject({ Currency: CurrencyCodeSchema, Value: z.number().nonnegative() }),
  Type: PaymentRequestTypeSchema,
  Reason: PaymentRequestReasonSchema,
  ExpirationUtc: DateTimeSchema,
  Description: z.string().min(1).max(PAYMENT_REQUEST_TEXT_MAX_CHARS),
  Notes: z.string().max(PAYMENT_REQUEST_TEXT_MAX_CHARS).nullable().optional(),
});
/** One payment request to create. */
export type NewPaymentRequest = z.input<typeof NewPaymentRequestSchema>;

/** Request of paymentRequests/add (without the envelope). */
export const PaymentRequestsAddRequestSchema = z.strictObject({
  // Required with Portfolio Access Tokens (the client adds it), ignored otherwise, so null
  // passes as a field left out does.
  EnterpriseId: UuidSchema.nullable().optional(),
  PaymentRequests: z.array(NewPaymentRequestSchema),
});
/** Request of paymentRequests/add. */
export type PaymentRequestsAddRequest = z.input<typeof PaymentRequestsAddRequestSchema>;

/** Response of paymentRequests/add: the created payment requests. */
export const PaymentRequestsAddResponseSchema = z.looseObject({
  PaymentRequests: z.array(PaymentRequestSchema),
  Cursor: OptionalCursorSchema,
});
/** Response of paymentRequests/add. */
export type PaymentRequestsAddResponse = z.infer<typeof PaymentRequestsAddResponseSchema>;
