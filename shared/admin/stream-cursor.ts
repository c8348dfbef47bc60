import { z } from 'zod';

/**
 * Where a page of `GET /streams` ended: the last stream id it held (the next page holds the
 * ids after it), and how many stored stream states sorted up to it then, so the next page's
 * read of the states (in id order, from the first) asks for about as many as it needs at once.
 */
export interface StreamListPosition {
  /** The last stream id of the page: the next page starts after it. */
  after: string;
  /** Stored stream states (of the listing's filter) up to `after` when the page was read. */
  read: number;
}

/** The longest stream id a cursor names: DynamoDB holds no sort key over 1,024 bytes. */
const AFTER_MAX_CHARS = 1024;
/** The most states a cursor says came before it: far more than any deployment's streams. */
const READ_MAX = 100_000_000;
/** The longest cursor text: the two parts above, in base64url. */
export const STREAM_CURSOR_MAX_CHARS = Math.ceil(
  ((String(READ_MAX).length + 1 + AFTER_MAX_CHARS * 3) * 4) / 3,
);

const REFUSAL = 'must be a nextCursor a previous page gave';

/**
 * The cursor `GET /streams` answers as `nextCursor`: where its page ended, opaque to callers.
 * @example encodeStreamCursor({ after: 'hotel-7:resource', read: 21 }) // 'MjE6aG90ZWwtNzpyZXNvdXJjZQ'
 */
export function encodeStreamCursor(position: StreamListPosition): string {
  return Buffer.from(`${position.read}:${position.after}`).toString('base64url');
}

/**
 * A cursor as `GET /streams?cursor=` takes it: one a previous page answered as `nextCursor`.
 * A made-up one that decodes to a count (0 to 100,000,000) and an id only moves where the page
 * starts in the list every caller may read (a large count reads every state, no more); anything
 * else is refused.
 */
export const StreamCursorSchema = z
  .string()
  .max(STREAM_CURSOR_MAX_CHARS, { error: REFUSAL })
  .transform((text, context): StreamListPosition => {
    const decoded = Buffer.from(text, 'base64url').toString();
    const split = decoded.indexOf(':');
    const count = decoded.slice(0, split);
    const after = decoded.slice(split + 1);
    const read = Number(count);
    if (
      split <= 0 ||
      !/^[0-9]+$/.test(count) ||
      read > READ_MAX ||
      after === '' ||
      after.length > AFTER_MAX_CHARS ||
      encodeStreamCursor({ after, read }) !== text
    ) {
      context.addIssue({ code: 'custom', message: REFUSAL });
      return z.NEVER;
    }
    return { after, read };
  });
