import { z } from 'zod';
import {
  ActivityStateSchema,
  LimitationSchema,
  TimeFilterIntervalSchema,
} from '../records/common.ts';
import { LoyaltyMembershipSchema, LoyaltyMembershipStateSchema } from '../records/loyalty.ts';
import { idFilter, PageCursorSchema, stringFilter } from './filters.ts';

/** Request of loyaltyMemberships/getAll (without the envelope). */
export const LoyaltyMembershipsGetAllRequestSchema = z.strictObject({
  Limitation: LimitationSchema,
  ChainIds: idFilter().optional(),
  CreatedUtc: TimeFilterIntervalSchema.optional(),
  UpdatedUtc: TimeFilterIntervalSchema.optional(),
  LoyaltyMembershipIds: idFilter().optional(),
  AccountIds: idFilter().optional(),
  LoyaltyProgramIds: idFilter().optional(),
  MembershipStates: z.array(LoyaltyMembershipStateSchema).optional(),
  ActivityStates: z.array(ActivityStateSchema).optional(),
  // Codes printed on loyalty cards.
  Codes: stringFilter().optional(),
  ProviderMembershipIds: stringFilter().optional(),
});
/** Request of loyaltyMemberships/getAll. */
export type LoyaltyMembershipsGetAllRequest = z.input<typeof LoyaltyMembershipsGetAllRequestSchema>;

/** Response of loyaltyMemberships/getAll. */
export const LoyaltyMembershipsGetAllResponseSchema = z.looseObject({
  LoyaltyMemberships: z.array(LoyaltyMembershipSchema),
  Cursor: PageCursorSchema,
});
/** Response of loyaltyMemberships/getAll. */
export type LoyaltyMembershipsGetAllResponse = z.infer<
  typeof LoyaltyMembershipsGetAllResponseSchema
>;
