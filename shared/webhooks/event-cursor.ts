import { z } from 'zod';
import type { EventListPosition } from './store.ts';

/**
 * The cursor `GET /events` answers as `nextCursor`: where its page ended, opaque to callers.
 * @example encodeEventCursor({ at: 1764383400000, id: 'evt_01…' }) // 'MTc2NDM4MzQwMDAwMDpldnRfMDHigKY'
 */
export function encodeEventCursor(position: EventListPosition): string {
  return Buffer.from(`${position.at}:${position.id}`).toString('base64url');
}

/** A cursor as `GET /events?cursor=` takes it: one a previous page answered as `nextCursor`. */
export const EventCursorSchema = z.string().transform((text, context): EventListPosition => {
  const decoded = Buffer.from(text, 'base64url').toString();
  const split = decoded.indexOf(':');
  const at = Number(decoded.slice(0, split));
  const id = decoded.slice(split + 1);
  if (split <= 0 || !Number.isSafeInteger(at) || id === '') {
    context.addIssue({ code: 'custom', message: 'must be a nextCursor a previous page gave' });
    return z.NEVER;
  }
  return { at, id };
});
