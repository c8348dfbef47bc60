import { z } from 'zod';
import { AccountNoteSchema } from '../records/account-note.ts';
import {
  ActivityStateSchema,
  LimitationSchema,
  TimeFilterIntervalSchema,
} from '../records/common.ts';
import { idFilter, PageCursorSchema } from './filters.ts';

/** Request of accountNotes/getAll (without the envelope). */
export const AccountNotesGetAllRequestSchema = z.strictObject({
  Limitation: LimitationSchema,
  ChainIds: idFilter().optional(),
  AccountNoteIds: idFilter().optional(),
  // Customer or Company accounts.
  AccountIds: idFilter().optional(),
  UpdatedUtc: TimeFilterIntervalSchema.optional(),
  ActivityStates: z.array(ActivityStateSchema).optional(),
});
/** Request of accountNotes/getAll. */
export type AccountNotesGetAllRequest = z.input<typeof AccountNotesGetAllRequestSchema>;

/** Response of accountNotes/getAll. */
export const AccountNotesGetAllResponseSchema = z.looseObject({
  AccountNotes: z.array(AccountNoteSchema),
  Cursor: PageCursorSchema,
});
/** Response of accountNotes/getAll. */
export type AccountNotesGetAllResponse = z.infer<typeof AccountNotesGetAllResponseSchema>;
