import { hash } from 'node:crypto';
import type { EntityEventKind, EntityType } from './entity-types.ts';

/** Crockford's base32 alphabet (as in ULID): no I, L, O or U, so ids read back unambiguously. */
const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Characters after the `evt_` prefix: 26 × 5 = 130 bits of the SHA-256 digest. */
export const EVENT_ID_LENGTH_CHARS = 26;

/**
 * Shape of an id made of `prefix` and the {@link EVENT_ID_LENGTH_CHARS} uppercase Crockford
 * base32 characters of a hash ({@link hashedId}): `evt_…`, `sub_…`, `bf_…`. Pure.
 * @example hashedIdPattern('bf_').test('bf_0123456789ABCDEFGHJKMNPQRS') // true
 */
export function hashedIdPattern(prefix: string): RegExp {
  return new RegExp(`^${prefix}[0-9A-HJKMNP-TV-Z]{${EVENT_ID_LENGTH_CHARS}}$`);
}

/** Shape of every event id: `evt_` and 26 uppercase Crockford base32 characters. */
export const EVENT_ID_PATTERN = hashedIdPattern('evt_');

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

/**
 * `evt_` and the first {@link EVENT_ID_LENGTH_CHARS} Crockford base32 characters of a digest
 * given as a 'binary' (latin1) string: one character per byte, one small string and no Buffer.
 */
function idOfDigest(digest: string): string {
  let at = ID_PREFIX.length;
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < digest.length && at < idBytes.length; i++) {
    buffer = ((buffer << 8) | digest.charCodeAt(i)) & 0xffff;
    bits += 8;
    while (bits >= 5 && at < idBytes.length) {
      bits -= 5;
      idBytes[at++] = ALPHABET_CODES[(buffer >> bits) & 31]!;
    }
  }
  return idBytes.toString('latin1');
}

/** The hashed text of an id being made: each part as `<UTF-8 length>:<part>`, in one reused buffer. */
let partBytes = Buffer.allocUnsafeSlow(1024);
let partsLength = 0;

/** Appends one length-prefixed part to {@link partBytes}. */
function writePart(part: string): void {
  const size = Buffer.byteLength(part, 'utf8');
  const prefix = `${size}:`;
  const needed = partsLength + prefix.length + size;
  if (needed > partBytes.length) {
    const grown = Buffer.allocUnsafeSlow(Math.max(needed, partBytes.length * 2));
    partBytes.copy(grown, 0, 0, partsLength);
    partBytes = grown;
  }
  partsLength += partBytes.write(prefix, partsLength, 'latin1');
  partsLength += partBytes.write(part, partsLength, 'utf8');
}

/** The id of the parts written since `partsLength` was last set to 0. */
function idOfParts(): string {
  return idOfDigest(hash('sha256', partBytes.subarray(0, partsLength), 'binary'));
}

/**
 * A deterministic event id from any list of parts: `evt_` + 26 Crockford base32 chars of
 * SHA-256 over the parts, each prefixed with its UTF-8 byte length and a colon. The length
 * prefix makes the encoding injective: `['a:b', 'c']` and `['a', 'b:c']` hash differently.
 * Used directly for operational events; change events go through {@link eventId}.
 * @example hashEventId(['ping', 'sub_1', '2026-01-01T00:00:00.000Z'])
 */
export function hashEventId(parts: readonly string[]): string {
  partsLength = 0;
  for (const part of parts) writePart(part);
  return idOfParts();
}

/**
 * An id of another kind made as an event id is ({@link hashEventId}), under its own `prefix`
 * (`sub_`, `bf_`): it has the shape {@link hashedIdPattern} gives for that prefix.
 * @example hashedId('bf_', ['backfill/v1', '1700000000000', '0.5'])
 */
export function hashedId(prefix: string, parts: readonly string[]): string {
  return `${prefix}${hashEventId(parts).slice(ID_PREFIX.length)}`;
}

/**
 * The id of a change event: a hash of connection, entity type, entity id, change kind and
 * content hash (and the backfill that published it again, if one did). The same change detected twice (a repeated window, a retried poll) gets
 * the same id, so consumers can deduplicate on it; a change in any part gives another id.
 * @example eventId({ connectionId: 'main', entityType: 'customer', entityId: 'c1', change: 'updated', contentHash: 'ab12…' })
 */
export function eventId(parts: EventIdParts): string {
  partsLength = 0;
  writePart('change-event/v1');
  writePart(parts.connectionId);
  writePart(parts.entityType);
  writePart(parts.entityId);
  writePart(parts.change);
  writePart(parts.contentHash);
  if (parts.previousVersion !== undefined) writePart(`after:${parts.previousVersion}`);
  if (parts.backfillId !== undefined) writePart(`backfill:${parts.backfillId}`);
  return idOfParts();
}
