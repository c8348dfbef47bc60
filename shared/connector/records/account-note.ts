import { z } from 'zod';
import { ProfileDataSchema, UuidSchema } from './common.ts';

/** Kinds of account a note belongs to. */
export const AccountTypeSchema = z.enum(['Company', 'Customer']);
/** Kind of account. */
export type AccountType = z.infer<typeof AccountTypeSchema>;

/** Account note classifications. */
export const AccountNoteClassificationSchema = z.enum([
  'General',
  'FoodAndBeverage',
  'FrontOffice',
  'Reservations',
  'Housekeeping',
  'Maintenance',
  'PreviousStay',
  'FamilyRelations',
  'Gifts',
  'Accounting',
  'Complaints',
  'Other',
]);
/** Account note classification. */
export type AccountNoteClassification = z.infer<typeof AccountNoteClassificationSchema>;

/** A note on a customer or company account. It carries no timestamps. */
export const AccountNoteSchema = z.looseObject({
  Id: UuidSchema,
  AccountId: UuidSchema,
  Content: z.string().min(1),
  AccountType: AccountTypeSchema,
  Classifications: z.array(AccountNoteClassificationSchema),
  IsActive: z.boolean(),
  CreatorProfile: ProfileDataSchema,
  UpdaterProfile: ProfileDataSchema,
});
/** A note on a customer or company account. */
export type AccountNote = z.infer<typeof AccountNoteSchema>;
