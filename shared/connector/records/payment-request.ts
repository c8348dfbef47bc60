import { z } from 'zod';
import { AmountSchema, DateTimeSchema, UuidSchema } from './common.ts';

/** Payment request states. */
export const PaymentRequestStateSchema = z.enum(['Pending', 'Completed', 'Canceled', 'Expired']);
/** Payment request state. */
export type PaymentRequestState = z.infer<typeof PaymentRequestStateSchema>;

/** Payment request types. */
export const PaymentRequestTypeSchema = z.enum(['Payment', 'Preauthorization']);
/** Payment request type. */
export type PaymentRequestType = z.infer<typeof PaymentRequestTypeSchema>;

/** Payment request reasons. */
export const PaymentRequestReasonSchema = z.enum([
  'Other',
  'PaymentCardMissing',
  'PaymentCardDeclined',
  'Deposit',
  'Prepayment',
  'Fee',
  'RecurringPayment',
]);
/** Payment request reason. */
export type PaymentRequestReason = z.infer<typeof PaymentRequestReasonSchema>;

/** Longest payment request description or notes. */
export const PAYMENT_REQUEST_TEXT_MAX_CHARS = 1000;

/** A request for payment issued to a customer. */
export const PaymentRequestSchema = z.looseObject({
  Id: UuidSchema,
  EnterpriseId: UuidSchema,
  AccountId: UuidSchema,
  CustomerId: UuidSchema.nullable().optional(),
  ReservationGroupId: UuidSchema.nullable().optional(),
  ReservationId: UuidSchema.nullable().optional(),
  State: PaymentRequestStateSchema,
  Amount: AmountSchema,
  Type: PaymentRequestTypeSchema,
  Reason: PaymentRequestReasonSchema,
  ExpirationUtc: DateTimeSchema,
  Description: z.string().min(1).max(PAYMENT_REQUEST_TEXT_MAX_CHARS),
  Notes: z.string().max(PAYMENT_REQUEST_TEXT_MAX_CHARS).nullable().optional(),
  CreatedUtc: DateTimeSchema,
  UpdatedUtc: DateTimeSchema,
});
/** A request for payment issued to a customer. */
export type PaymentRequest = z.infer<typeof PaymentRequestSchema>;
