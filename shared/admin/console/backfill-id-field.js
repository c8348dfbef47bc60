/**
 * The console's "Job id" field, read as the CLI reads a backfill id (shared/cli/admin/id-shapes.ts):
 * a text that is no backfill id is refused before the API is asked about it.
 */

/** The API's BACKFILL_ID_PATTERN (shared/admin/backfill-jobs.ts), character for character; a test keeps them equal. */
export const BACKFILL_ID_PATTERN = /^bf_[0-9A-HJKMNP-TV-Z]{26}$/;

/** What a backfill id takes, in the CLI's words (shared/cli/admin/id-shapes.ts); a test keeps them equal. */
export const BACKFILL_ID_TAKES =
  'must be a backfill id: bf_ and 26 characters, as backfill and backfill list print it';

/**
 * The backfill id a form field holds (trimmed), nothing for blank text, or why it is refused.
 * Pure.
 * @param {FormDataEntryValue | null} text
 * @returns {{ id?: string, problem?: string }} `id` when taken, `problem` when refused, neither for blank text
 * @example readBackfillIdField(' bf_0123456789ABCDEFGHJKMNPQRS ') // { id: 'bf_0123456789ABCDEFGHJKMNPQRS' }
 * @example readBackfillIdField('job 7') // { problem: 'Job id: must be a backfill id: bf_ and 26 characters, …' }
 */
export function readBackfillIdField(text) {
  const id = String(text ?? '').trim();
  if (id === '') return {};
  if (!BACKFILL_ID_PATTERN.test(id)) return { problem: `Job id: ${BACKFILL_ID_TAKES}` };
  return { id };
}
