import { z } from 'zod';
import { DateTimeSchema, UuidSchema } from './common.ts';

/** Voucher types. */
export const VoucherTypeSchema = z.enum(['Public', 'PartnerCompany', 'TravelAgency']);
/** Voucher type. */
export type VoucherType = z.infer<typeof VoucherTypeSchema>;

/** A voucher of a service, as vouchers/add returns it. */
export const VoucherSchema = z.looseObject({
  Id: UuidSchema,
  ServiceId: UuidSchema,
  Name: z.string(),
  CreatedUtc: DateTimeSchema,
  UpdatedUtc: DateTimeSchema,
  Type: VoucherTypeSchema,
  // "active or not", exact spelling not shown: a plain string.
  ActivityState: z.string(),
  CompanyId: UuidSchema.nullable().optional(),
  TravelAgencyId: UuidSchema.nullable().optional(),
  OccupiableIntervalStartUtc: DateTimeSchema.nullable().optional(),
  OccupiableIntervalEndUtc: DateTimeSchema.nullable().optional(),
  ExternalIdentifier: z.string().nullable().optional(),
});
/** A voucher of a service. */
export type Voucher = z.infer<typeof VoucherSchema>;
