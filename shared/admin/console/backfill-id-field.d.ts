/** Types of backfill-id-field.js (a browser module of the console, also tested under Node). */

/** The API's BACKFILL_ID_PATTERN (shared/admin/backfill-jobs.ts), character for character. */
export const BACKFILL_ID_PATTERN: RegExp;

/** What a backfill id takes, in the CLI's words (shared/cli/admin/id-shapes.ts). */
export const BACKFILL_ID_TAKES: string;

/** The backfill id a form field holds, nothing for blank text, or why it is refused. */
export function readBackfillIdField(text: FormDataEntryValue | string | null): {
  id?: string;
  problem?: string;
};
