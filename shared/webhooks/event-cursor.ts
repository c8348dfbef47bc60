import { z } from 'zod';
import type { EventListPosition } from './store.ts';

/**
 * The last instant an event can be listed at: 9999-12-31T23:59:59.999Z, the last whose ISO 8601
 * text (the DynamoDB list's sort key) has a four-digit year; later ones no longer sort as text,
 * and past ±8.64e15 ms there is no date at all.
 */
export const LATEST_LISTED_AT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * The cursor `GET /events` answers as `nextCursor`: where its page ended, opaque to callers.
 * @example encodeEventCursor({ at: 1764383400000, id: 'evt_01…' }) // 'MTc2NDM4MzQwMDAwMDpldnRfMDHigKY'
 */
export function encodeEventCursor(position: EventListPosition): string {
  return Buffer.from(`${position.at}:${position.id}`).toString('base64url');
}

/**
 * A cursor as `GET /events?cursor=` takes it: one a previous page answered as `nextCursor`.
 * A made-up one that decodes to a time (0 to {@link LATEST_LISTED_AT_MS}) and an id only moves
 * where the page starts in the one list every caller may read; anything else is refused.
 */
export const EventCursorSchema = z.string().transform((text, context): EventListPosition => {
  const decoded = Buffer.from(text, 'base64url').toString();
  const split = decoded.indexOf(':');
  const at = Number(decoded.slice(0, split));
  const id = decoded.slice(split + 1);
  if (split <= 0 || !Number.isInteger(at) || at < 0 || at > LATEST_LISTED_AT_MS || id === '') {
    context.addIssue({ code: 'custom', message: 'must be a nextCursor a previous page gave' });
    return z.NEVER;
  }
  return { at, id };
});
