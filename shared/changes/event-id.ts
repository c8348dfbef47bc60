import { hash } from 'node:crypto';
import type { EntityEventKind, EntityType } from './entity-types.ts';

/** Crockford's base32 alphabet (as in ULID): no I, L, O or U, so ids read back unambiguously. */
const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Characters after the `evt_` prefix: 26 × 5 = 130 bits of the SHA-256 digest. */
export const EVENT_ID_LENGTH_CHARS = 26;

/** Shape of every event id: `evt_` and 26 uppercase Crockford base32 characters. */
export const EVENT_ID_PATTERN = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;

/** The parts that identify one detected change. */
export interface EventIdParts {
  connectionId: string;
  entityType: EntityType;
  entityId: string;
  change: EntityEventKind;
  /** Content hash of the current record; for a delete, of the last stored snapshot. */
  contentHash: string;
  /**
   * When the stored snapshot the change was measured against was written (epoch ms), if any.
   * Re-detecting the same change (a crash before commit, an overlapping window) meets the
   * same snapshot and keeps the id; a record that flips back and forth (A→B→A→B) meets a
   * newer snapshot each time, so a receiver deduplicating on ids never drops a real change.
   */
  previousVersion?: number | undefined;
  /**
   * The backfill that published this event (a `created` of `backfill --emit`): each backfill's
   * events get ids of their own, so a subscriber that received an entity's earlier `created`
   * is sent the backfill's too, while a backfill resumed after a crash keeps its ids.
   */
  backfillId?: string | undefined;
}

/** `evt_` and the id's characters, written as bytes: one string per id, not one per character. */
const ID_PREFIX = 'evt_';
const idBytes = Buffer.alloc(ID_PREFIX.length + EVENT_ID_LENGTH_CHARS);
idBytes.write(ID_PREFIX, 'latin1');
const ALPHABET_CODES = Uint8Array.from(CROCKFORD_ALPHABET, (char) => char.charCodeAt(0));

/** `evt_` and the first {@link EVENT_ID_LENGTH_CHARS} Crockford base32 characters of `digest`. */
function idOfDigest(digest: Uint8Array): string {
  let at = ID_PREFIX.length;
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < digest.length && at < idBytes.length; i++) {
    buffer = ((buffer << 8) | digest[i]!) & 0xffff;
    bits += 8;
    while (bits >= 5 && at < idBytes.length) {
      bits -= 5;
      idBytes[at++] = ALPHABET_CODES[(buffer >> bits) & 31]!;
    }
  }
  return idBytes.toString('latin1');
}

/**
 * A deterministic event id from any list of parts: `evt_` + 26 Crockford base32 chars of
 * SHA-256 over the parts, each prefixed with its UTF-8 byte length and a colon. The length
 * prefix makes the encoding injective: `['a:b', 'c']` and `['a', 'b:c']` hash differently.
 * Used directly for operational events; change events go through {@link eventId}.
 * @example hashEventId(['ping', 'sub_1', '2026-01-01T00:00:00.000Z'])
 */
export function hashEventId(parts: readonly string[]): string {
  let prefixed = '';
  for (const part of parts) prefixed += `${Buffer.byteLength(part, 'utf8')}:${part}`;
  return idOfDigest(hash('sha256', prefixed, 'buffer'));
}

/**
 * The id of a change event: a hash of connection, entity type, entity id, change kind and
 * content hash (and the backfill that published it again, if one did). The same change detected twice (a repeated window, a retried poll) gets
 * the same id, so consumers can deduplicate on it; a change in any part gives another id.
 * @example eventId({ connectionId: 'main', entityType: 'customer', entityId: 'c1', change: 'updated', contentHash: 'ab12…' })
 */
export function eventId(parts: EventIdParts): string {
  const list = [
    'change-event/v1',
    parts.connectionId,
    parts.entityType,
    parts.entityId,
    parts.change,
    parts.contentHash,
  ];
  if (parts.previousVersion !== undefined) list.push(`after:${parts.previousVersion}`);
  if (parts.backfillId !== undefined) list.push(`backfill:${parts.backfillId}`);
  return hashEventId(list);
}
