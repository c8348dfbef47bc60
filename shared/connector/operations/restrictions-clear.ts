import { z } from 'zod';
import { DateTimeSchema, UuidSchema } from '../records/common.ts';

/** Restriction kinds: no stay within the dates, no check-in, no check-out. */
export const RestrictionTypeSchema = z.enum(['Stay', 'Start', 'End']);
/** Restriction kind. */
export type RestrictionType = z.infer<typeof RestrictionTypeSchema>;

/**
 * One condition of restrictions to clear; it must match the restrictions exactly. The rate
 * group and resource category type fields are left out: their names are not shown in the
 * contract, and a strict schema cannot accept a guessed name.
 */
export const RestrictionConditionSchema = z.strictObject({
  Type: RestrictionTypeSchema,
  ExactRateId: UuidSchema.nullable().optional(),
  BaseRateId: UuidSchema.nullable().optional(),
  ResourceCategoryId: UuidSchema.nullable().optional(),
  StartUtc: DateTimeSchema.nullable().optional(),
  EndUtc: DateTimeSchema.nullable().optional(),
  Days: z
    .strictObject({
      Monday: z.boolean(),
      Tuesday: z.boolean(),
      Wednesday: z.boolean(),
      Thursday: z.boolean(),
      Friday: z.boolean(),
      Saturday: z.boolean(),
      Sunday: z.boolean(),
    })
    .optional(),
});
/** One condition of restrictions to clear. */
export type RestrictionCondition = z.input<typeof RestrictionConditionSchema>;

/** Request of restrictions/clear (without the envelope). */
export const RestrictionsClearRequestSchema = z.strictObject({
  ServiceId: UuidSchema,
  Data: z.array(RestrictionConditionSchema),
});
/** Request of restrictions/clear. */
export type RestrictionsClearRequest = z.input<typeof RestrictionsClearRequestSchema>;

/** Response of restrictions/clear: an empty JSON object. */
export const RestrictionsClearResponseSchema = z.looseObject({});
/** Response of restrictions/clear. */
export type RestrictionsClearResponse = z.infer<typeof RestrictionsClearResponseSchema>;
