import { z } from 'zod';
import { DateTimeSchema, ProfileDataSchema, UuidSchema } from './common.ts';

/** Loyalty membership states. */
export const LoyaltyMembershipStateSchema = z.enum([
  'New',
  'Pending',
  'Enrolled',
  'Canceled',
  'Declined',
]);
/** Loyalty membership state. */
export type LoyaltyMembershipState = z.infer<typeof LoyaltyMembershipStateSchema>;

/** A customer's membership of a loyalty program. It carries no timestamps. */
export const LoyaltyMembershipSchema = z.looseObject({
  Id: UuidSchema,
  ChainId: UuidSchema,
  AccountId: UuidSchema,
  LoyaltyProgramId: UuidSchema,
  State: LoyaltyMembershipStateSchema,
  IsPrimary: z.boolean(),
  ProviderMembershipId: z.string().nullable().optional(),
  Code: z.string().nullable().optional(),
  Points: z.number().int().nullable().optional(),
  ExpirationDate: DateTimeSchema.nullable().optional(),
  Url: z.string().nullable().optional(),
  LoyaltyTierId: UuidSchema.nullable().optional(),
  // Required, but the contract says they may be null in responses.
  CreatorProfile: ProfileDataSchema.nullable(),
  UpdaterProfile: ProfileDataSchema.nullable(),
});
/** A customer's membership of a loyalty program. */
export type LoyaltyMembership = z.infer<typeof LoyaltyMembershipSchema>;

/** A loyalty program, as loyaltyPrograms/update returns it. */
export const LoyaltyProgramSchema = z.looseObject({
  Id: UuidSchema,
  ChainId: UuidSchema,
  Name: z.string(),
  Code: z.string(),
  // Allowed values of Type and Subscription are not shown in the contract: plain strings.
  Type: z.string(),
  Subscription: z.string(),
});
/** A loyalty program. */
export type LoyaltyProgram = z.infer<typeof LoyaltyProgramSchema>;
