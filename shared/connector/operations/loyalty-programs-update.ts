import { z } from 'zod';
import { UuidSchema, updateValue } from '../records/common.ts';
import { LoyaltyProgramSchema } from '../records/loyalty.ts';
import { OptionalCursorSchema } from './filters.ts';

/** One loyalty program change: the program and the new values of the fields to change. */
export const LoyaltyProgramUpdateSchema = z.strictObject({
  LoyaltyProgramId: UuidSchema,
  Name: updateValue(z.string()).nullable().optional(),
  Type: updateValue(z.string()).nullable().optional(),
  Subscription: updateValue(z.string()).nullable().optional(),
});
/** One loyalty program change. */
export type LoyaltyProgramUpdate = z.input<typeof LoyaltyProgramUpdateSchema>;

/** Request of loyaltyPrograms/update (without the envelope); the contract shows no bounds. */
export const LoyaltyProgramsUpdateRequestSchema = z.strictObject({
  // Required with Portfolio Access Tokens (the client adds it), ignored otherwise, so null
  // passes as a field left out does.
  ChainId: UuidSchema.nullable().optional(),
  LoyaltyProgramUpdates: z.array(LoyaltyProgramUpdateSchema),
});
/** Request of loyaltyPrograms/update. */
export type LoyaltyProgramsUpdateRequest = z.input<typeof LoyaltyProgramsUpdateRequestSchema>;

/** Response of loyaltyPrograms/update: the updated programs. */
export const LoyaltyProgramsUpdateResponseSchema = z.looseObject({
  LoyaltyPrograms: z.array(LoyaltyProgramSchema),
  Cursor: OptionalCursorSchema,
});
/** Response of loyaltyPrograms/update. */
export type LoyaltyProgramsUpdateResponse = z.infer<typeof LoyaltyProgramsUpdateResponseSchema>;
