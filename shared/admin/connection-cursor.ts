import { z } from 'zod';

/**
 * Where a page of `GET /connections` ended: how many of the environment's connections (listed
 * first, in their order) it had reached, and the last stored connection id it held (the next
 * page holds the stored ids after it; absent while none was listed).
 */
export interface ConnectionListPosition {
  /** The environment's connections listed up to the page's end. */
  environment: number;
  /** The last stored connection id listed; the next page starts after it. */
  after?: string;
}

/** The longest stored id a cursor names: DynamoDB holds no sort key over 1,024 bytes. */
const AFTER_MAX_CHARS = 1024;
/** More environment connections than any deployment defines (the CDK props hold 20 at most). */
const ENVIRONMENT_MAX = 10_000;
/** The longest cursor text: the two parts above, in base64url. */
export const CONNECTION_CURSOR_MAX_CHARS = Math.ceil(
  ((String(ENVIRONMENT_MAX).length + 1 + AFTER_MAX_CHARS * 3) * 4) / 3,
);

const REFUSAL = 'must be a nextCursor a previous page gave';

/**
 * The cursor `GET /connections` answers as `nextCursor`: where its page ended, opaque to callers.
 * @example encodeConnectionCursor({ environment: 1, after: 'hotel-7' }) // 'MTpob3RlbC03'
 */
export function encodeConnectionCursor(position: ConnectionListPosition): string {
  return Buffer.from(`${position.environment}:${position.after ?? ''}`).toString('base64url');
}

/**
 * A cursor as `GET /connections?cursor=` takes it: one a previous page answered as
 * `nextCursor`. A made-up one that decodes to a count and an id only moves where the page
 * starts in the list every caller may read; anything else is refused.
 */
export const ConnectionCursorSchema = z
  .string()
  .max(CONNECTION_CURSOR_MAX_CHARS, { error: REFUSAL })
  .transform((text, context): ConnectionListPosition => {
    const decoded = Buffer.from(text, 'base64url').toString();
    const split = decoded.indexOf(':');
    const count = decoded.slice(0, split);
    const after = decoded.slice(split + 1);
    const environment = Number(count);
    const position = { environment, ...(after === '' ? {} : { after }) };
    if (
      split <= 0 ||
      !/^[0-9]+$/.test(count) ||
      environment > ENVIRONMENT_MAX ||
      after.length > AFTER_MAX_CHARS ||
      encodeConnectionCursor(position) !== text
    ) {
      context.addIssue({ code: 'custom', message: REFUSAL });
      return z.NEVER;
    }
    return position;
  });
