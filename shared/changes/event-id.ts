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

function encodeCrockford(bytes: Uint8Array, length: number): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5 && out.length < length) {
      bits -= 5;
      out += CROCKFORD_ALPHABET[(buffer >> bits) & 31];
    }
    if (out.length === length) break;
  }
  return out;
}

/**
 * A deterministic event id from any list of parts: `evt_` + 26 Crockford base32 chars of
 * SHA-256 over the parts, each prefixed with its UTF-8 byte length and a colon. The length
 * prefix makes the encoding injective: `['a:b', 'c']` and `['a', 'b:c']` hash differently.
 * Used directly for operational events; change events go through {@link eventId}.
 * @example hashEventId(['ping', 'sub_1', '2026-01-01T00:00:00.000Z'])
 */
export function hashEventId(parts: readonly string[]): string {
  const prefixed = parts.map((part) => `${Buffer.byteLength(part, 'utf8')}:${part}`).join('');
  return `evt_${encodeCrockford(hash('sha256', prefixed, 'buffer'), EVENT_ID_LENGTH_CHARS)}`;
}

/**
 * The id of a change event: a hash of connection, entity type, entity id, change kind and
 * content hash (and the backfill that published it again, if one did). The same change detected twice (a repeated window, a retried poll) gets
 * the same id, so consumers can deduplicate on it; a change in any part gives another id.
 * @example eventId({ connectionId: 'main', entityType: 'customer', entityId: 'c1', change: 'updated', contentHash: 'ab12…' })
 */
export function eventId(parts: EventIdParts): string {
  return hashEventId([
    'change-event/v1',
    parts.connectionId,
    parts.entityType,
    parts.entityId,
    parts.change,
    parts.contentHash,
    ...(parts.previousVersion === undefined ? [] : [`after:${parts.previousVersion}`]),
    ...(parts.backfillId === undefined ? [] : [`backfill:${parts.backfillId}`]),
  ]);
}
