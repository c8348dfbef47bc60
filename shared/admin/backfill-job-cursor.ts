import { z } from 'zod';
import { ID_MAX_LENGTH } from './schemas.ts';

/** Where a page of `GET /backfill` ended: its last job's start (epoch ms) and id. */
export const BackfillJobPositionSchema = z.object({
  startedAt: z.number().int().nonnegative(),
  id: z.string().min(1).max(ID_MAX_LENGTH),
});
/** Where a page of jobs ended (see {@link BackfillJobPositionSchema}). */
export type BackfillJobPosition = z.infer<typeof BackfillJobPositionSchema>;

/** The most digits of a start instant a cursor names (epoch ms until the year 33658). */
const STARTED_AT_MAX_DIGITS = 15;
/** The longest cursor text: start, separator and id (UTF-8, 3 bytes a char at most), in base64url. */
export const BACKFILL_JOB_CURSOR_MAX_CHARS = Math.ceil(
  ((STARTED_AT_MAX_DIGITS + 1 + ID_MAX_LENGTH * 3) * 4) / 3,
);

const REFUSAL = 'must be a nextCursor a previous page gave';

/**
 * The cursor `GET /backfill` answers as `nextCursor`: where its page ended, opaque to callers.
 * @example encodeBackfillJobCursor({ startedAt: 1764633600000, id: 'bf_1' }) // 'MTc2NDYzMzYwMDAwMHxiZl8x'
 */
export function encodeBackfillJobCursor(position: BackfillJobPosition): string {
  return Buffer.from(`${position.startedAt}|${position.id}`).toString('base64url');
}

/**
 * A cursor as `GET /backfill?cursor=` takes it: one a previous page answered as `nextCursor`. A
 * made-up one that decodes to an instant and an id only moves where the page starts in the list
 * every caller may read; anything else is refused.
 */
export const BackfillJobCursorSchema = z
  .string()
  .max(BACKFILL_JOB_CURSOR_MAX_CHARS, { error: REFUSAL })
  .transform((text, context): BackfillJobPosition => {
    const decoded = Buffer.from(text, 'base64url').toString();
    // The instant is digits: the first `|` ends it, whatever the id holds.
    const split = decoded.indexOf('|');
    const digits = decoded.slice(0, split);
    const id = decoded.slice(split + 1);
    const position = { startedAt: Number(digits), id };
    if (
      split <= 0 ||
      !/^[0-9]+$/.test(digits) ||
      digits.length > STARTED_AT_MAX_DIGITS ||
      !BackfillJobPositionSchema.safeParse(position).success ||
      encodeBackfillJobCursor(position) !== text
    ) {
      context.addIssue({ code: 'custom', message: REFUSAL });
      return z.NEVER;
    }
    return position;
  });
