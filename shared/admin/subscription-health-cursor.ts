import { z } from 'zod';
import type { SubscriptionPosition } from '../webhooks/console-admin.ts';
import { ID_MAX_LENGTH } from './schemas.ts';

/** The longest creation time a cursor names: an ISO 8601 instant with an offset, generously. */
const CREATED_AT_MAX_CHARS = 40;
/** The longest cursor text: creation time, separator and id (UTF-8, 3 bytes a char at most), in base64url. */
export const SUBSCRIPTION_HEALTH_CURSOR_MAX_CHARS = Math.ceil(
  ((CREATED_AT_MAX_CHARS + 1 + ID_MAX_LENGTH * 3) * 4) / 3,
);

const REFUSAL = 'must be a nextCursor a previous page gave';
const CreatedAtSchema = z.iso.datetime({ offset: true }).max(CREATED_AT_MAX_CHARS);

/**
 * The cursor `GET /subscriptions/health` answers as `nextCursor`: where its page ended (the last
 * subscription's creation time and id), opaque to callers.
 * @example encodeSubscriptionHealthCursor({ createdAt: '2026-01-01T00:00:00.000Z', id: 'sub_1' })
 */
export function encodeSubscriptionHealthCursor(position: SubscriptionPosition): string {
  return Buffer.from(`${position.createdAt}|${position.id}`).toString('base64url');
}

/**
 * A cursor as `GET /subscriptions/health?cursor=` takes it: one a previous page answered as
 * `nextCursor`. A made-up one that decodes to an instant and an id only moves where the page
 * starts in the list every caller may read; anything else is refused.
 */
export const SubscriptionHealthCursorSchema = z
  .string()
  .max(SUBSCRIPTION_HEALTH_CURSOR_MAX_CHARS, { error: REFUSAL })
  .transform((text, context): SubscriptionPosition => {
    const decoded = Buffer.from(text, 'base64url').toString();
    // An instant holds no `|`: the first one ends it, whatever the id holds.
    const split = decoded.indexOf('|');
    const createdAt = decoded.slice(0, split);
    const id = decoded.slice(split + 1);
    if (
      split <= 0 ||
      !CreatedAtSchema.safeParse(createdAt).success ||
      id === '' ||
      id.length > ID_MAX_LENGTH ||
      encodeSubscriptionHealthCursor({ createdAt, id }) !== text
    ) {
      context.addIssue({ code: 'custom', message: REFUSAL });
      return z.NEVER;
    }
    return { createdAt, id };
  });
