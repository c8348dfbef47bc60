import { z } from 'zod';
import { DateTimeSchema, UuidSchema } from '../records/common.ts';
import { VoucherSchema, VoucherTypeSchema } from '../records/voucher.ts';

/** One voucher to add. */
export const NewVoucherSchema = z.strictObject({
  ServiceId: UuidSchema,
  // connector-api.md gives no bounds for this operation's fields: none are invented here.
  Name: z.string(),
  Type: VoucherTypeSchema,
  // Null for a public voucher.
  CompanyId: UuidSchema.nullable().optional(),
  // Not a filter, so not 1-1000 items: empty assigns no rate.
  AssignedRateIds: z.array(UuidSchema).optional(),
  OccupiableIntervalStartUtc: DateTimeSchema.nullable().optional(),
  OccupiableIntervalEndUtc: DateTimeSchema.nullable().optional(),
  ExternalIdentifier: z.string().nullable().optional(),
});
/** One voucher to add. */
export type NewVoucher = z.input<typeof NewVoucherSchema>;

/** Request of vouchers/add (without the envelope). */
export const VouchersAddRequestSchema = z.strictObject({
  // Required with Portfolio Access Tokens (the client adds it), ignored otherwise, so null
  // passes as a field left out does.
  EnterpriseId: UuidSchema.nullable().optional(),
  VoucherParameters: z.array(NewVoucherSchema),
});
/** Request of vouchers/add. */
export type VouchersAddRequest = z.input<typeof VouchersAddRequestSchema>;

/** Response of vouchers/add: the added vouchers. */
export const VouchersAddResponseSchema = z.looseObject({
  Vouchers: z.array(VoucherSchema),
});
/** Response of vouchers/add. */
export type VouchersAddResponse = z.infer<typeof VouchersAddResponseSchema>;
