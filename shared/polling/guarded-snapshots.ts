import type { EntityEvent } from '../changes/entity-event-schema.ts';
import type { EntityRecord, EntityType, Scope } from '../changes/entity-types.ts';
import { buildChangeEvent } from '../changes/event.ts';
import type { StateStore, StoredSnapshot } from '../state/state-store.ts';

/**
 * Two writers store snapshots of the same entities: the stream's poll and the write-through
 * proxy (customers/update, paymentRequests/add), each reading the snapshot, publishing its
 * change, then storing (publish first, commit after). Run at the same moment, the later store
 * replaced a newer snapshot with an older version (the connector's state was then ahead of the
 * snapshot: a later change judged against the wrong record, or emitted twice), and the later
 * publish could send an older version after a newer one (the subscriber's last word stale).
 * So these stores are conditional ({@link StateStore.replaceSnapshots}): each replaces only the
 * snapshot its writer read; a refused one is judged again against what the other stored
 * ({@link storeGuarded}).
 */

/**
 * How long after this writer's publish ended the other writer must have detected its change
 * for its event to count as surely published after this one (clocks of two processes differ
 * a little): a detection sooner is taken as possibly published before.
 */
export const PUBLISHED_AFTER_MARGIN_MS = 250;

/** Attempts at storing against a changed snapshot before giving up (each rereads it). */
const MAX_ROUNDS = 4;

/** What {@link storeGuarded} stores and how it judges a refused snapshot. */
export interface GuardedStore {
  store: StateStore;
  streamId: string;
  connectionId: string;
  entityType: EntityType;
  scope: Scope;
  volatileFields: readonly string[];
  /** The snapshots this writer read before judging (absent: none was stored, or none read). */
  read: ReadonlyMap<string, StoredSnapshot>;
  /**
   * Epoch ms from which stored snapshots are the stream's own (a first sync's start): a refused
   * one stored before is what a reset left behind, not another writer's, and is stored over
   * without a correction, as the page judged it absent.
   */
  storedSince?: number;
  /** The snapshots to store (tombstones are stored as they are). */
  writes: readonly StoredSnapshot[];
  /** Entity ids this writer published an event of. */
  published: ReadonlySet<string>;
  /** Epoch ms this writer's publish ended. */
  publishedAt: number;
  /** Detection time of corrections, epoch ms. */
  now: number;
  /** Publishes corrections (the writer's own publisher and lane). */
  publish(events: EntityEvent[]): Promise<void>;
}

/**
 * Whether `record` is an older version than `other`: its UpdatedUtc is before the other's
 * (records without UpdatedUtc are never judged older, as at judging). Pure.
 */
function olderThan(record: EntityRecord, other: EntityRecord): boolean {
  const mine = record.UpdatedUtc;
  const theirs = other.UpdatedUtc;
  if (typeof mine !== 'string' || typeof theirs !== 'string') return false;
  return Date.parse(mine) < Date.parse(theirs);
}

/**
 * Stores `writes`, each only over the snapshot this writer read. A snapshot another writer
 * stored since is judged against this one:
 * - the other's is newer (its record's UpdatedUtc later, or a tombstone): it stays. This
 *   writer's event, if any, may have gone out after the other's newer one (unless the other
 *   detected its change after this publish ended): the newer version is published again, from
 *   this one, so the subject's last event carries it;
 * - this one is newer: it replaces the other's, and, the other's older event having gone out
 *   possibly after this writer's, this version is published again, from the other's.
 * A correction is an `updated` event with an id of its own; none when the two contents are
 * the same. Returns the corrections published.
 */
export async function storeGuarded(input: GuardedStore): Promise<number> {
  const plain = input.writes.filter((write) => write.deleted === true);
  if (plain.length > 0) await input.store.putSnapshots(input.streamId, plain);
  let pending = input.writes.filter((write) => write.deleted !== true);
  const expected = new Map<string, StoredSnapshot | undefined>(
    pending.map((write) => [write.entityId, input.read.get(write.entityId)]),
  );
  let corrections = 0;
  for (let round = 0; pending.length > 0; round++) {
    const refused = new Set(
      await input.store.replaceSnapshots(
        input.streamId,
        pending.map((snapshot) => ({ snapshot, expected: expected.get(snapshot.entityId) })),
      ),
    );
    if (refused.size === 0) break;
    if (round + 1 >= MAX_ROUNDS)
      throw new Error(
        `snapshots of ${[...refused].join(', ')} in stream ${input.streamId} kept changing while stored`,
      );
    const stored = await input.store.getSnapshots(input.streamId, [...refused]);
    const events: EntityEvent[] = [];
    const next: StoredSnapshot[] = [];
    for (const write of pending) {
      if (!refused.has(write.entityId)) continue;
      const other = stored.get(write.entityId);
      expected.set(write.entityId, other);
      if (
        other === undefined ||
        (input.storedSince !== undefined && other.updatedAt < input.storedSince)
      ) {
        next.push(write);
        continue;
      }
      const otherNewer = other.deleted === true || olderThan(write.record, other.record);
      if (otherNewer) {
        const otherAfter = other.updatedAt > input.publishedAt + PUBLISHED_AFTER_MARGIN_MS;
        if (other.deleted !== true && !otherAfter && input.published.has(write.entityId))
          if (other.hash !== write.hash) events.push(correction(input, write, other));
        continue;
      }
      next.push(write);
      if (other.deleted !== true && other.hash !== write.hash)
        events.push(correction(input, other, write));
    }
    if (events.length > 0) {
      await input.publish(events);
      corrections += events.length;
    }
    pending = next;
  }
  return corrections;
}

/** The `updated` event from `from` to `to` (two snapshots of one entity). Pure. */
function correction(input: GuardedStore, from: StoredSnapshot, to: StoredSnapshot): EntityEvent {
  return buildChangeEvent({
    connectionId: input.connectionId,
    entityType: input.entityType,
    entityId: to.entityId,
    scope: to.scope ?? input.scope,
    detectedAt: input.now,
    volatileFields: input.volatileFields,
    previousVersion: from.updatedAt,
    currentHash: to.hash,
    change: 'updated',
    current: to.record,
    previous: from.record,
  });
}
