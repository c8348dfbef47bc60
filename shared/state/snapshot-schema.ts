import { z } from 'zod';
import { isJsonObject } from '../json-object.ts';

/** Scope of a record under a Portfolio Access Token. */
export const SnapshotScopeSchema = z.object({
  enterpriseId: z.string().optional(),
  chainId: z.string().optional(),
});

/**
 * A plain JSON object, passed through as it is: `z.record(z.string(), z.unknown())` would copy
 * every member of every record a poll stores (a payload per member), for a record already
 * validated by its operation's schema.
 */
const JsonObjectSchema = z.custom<Record<string, unknown>>(isJsonObject, {
  message: 'expected a JSON object',
});

/** The last stored version of one entity of a stream. */
export const StoredSnapshotSchema = z.object({
  entityId: z.string(),
  /** Canonical content hash; a change is decided on it alone. */
  hash: z.string(),
  /** Checked as a JSON object, not copied: it comes validated from the connector. */
  record: JsonObjectSchema,
  scope: SnapshotScopeSchema.optional(),
  /** Tombstone: the entity was deleted; kept until `expiresAt` so a late re-read emits nothing twice. */
  deleted: z.boolean().optional(),
  /** Epoch SECONDS (the DynamoDB TTL attribute `ttl`). Expired items may linger until TTL removes them. */
  expiresAt: z.number().int().optional(),
  /** Epoch ms when stored. */
  updatedAt: z.number().int(),
  /**
   * Change events of this version that a failed publish may have put out to some targets only:
   * the next poll judging the entity publishes them again, as they were, before its own (see
   * polling/unconfirmed-events.ts). Absent once they are out.
   */
  unconfirmed: z.array(JsonObjectSchema).optional(),
});
/** The last stored version of one entity of a stream. */
export type StoredSnapshot = z.infer<typeof StoredSnapshotSchema>;

/** Which stored snapshot a writer read: its store time and hash name it. */
export type SnapshotVersion = Pick<StoredSnapshot, 'updatedAt' | 'hash'>;

/** A snapshot to store only over the one its writer read ({@link StateStore.replaceSnapshots}). */
export interface SnapshotReplacement {
  snapshot: StoredSnapshot;
  /** The snapshot the writer read; undefined when none was stored. */
  expected: SnapshotVersion | undefined;
}

/** Whether a stored snapshot is the version a writer read (undefined: none). Pure. */
export function isSnapshotVersion(
  stored: SnapshotVersion | undefined,
  expected: SnapshotVersion | undefined,
): boolean {
  if (stored === undefined || expected === undefined) return stored === expected;
  return stored.updatedAt === expected.updatedAt && stored.hash === expected.hash;
}
