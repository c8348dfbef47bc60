import { delegatingStateStore, type StateStore, type StoredSnapshot } from './state-store.ts';

/**
 * The hashes a process remembers by default, ~2 MB: an overlap re-reads the last seconds'
 * records (a burst of 5,000 updates needs 5,000), and memory is what a backfill is bound by.
 */
export const SNAPSHOT_HASHES_MAX_DEFAULT = 10_000;

/** What is remembered of one stored snapshot. */
interface RememberedSnapshot {
  hash: string;
  deleted: boolean;
}

/**
 * The content hash of snapshots as this process last wrote or read them, through
 * {@link rememberingSnapshotHashes}. Detection compares a fetched record's hash with it before
 * reading the store: a record re-read unchanged (the overlap of every window re-reads the
 * last seconds' records) needs no snapshot read. Only sound where every write of the store
 * goes through this process's wrapped store (the local runtime: one process opens a data dir,
 * and its pollers, admin API and write-through share one store); a Lambda poller does not use
 * it. Bounded: past `max` entries the oldest is forgotten (a miss only reads the store).
 */
export class SnapshotHashes {
  private readonly entries = new Map<string, RememberedSnapshot>();

  constructor(private readonly max = SNAPSHOT_HASHES_MAX_DEFAULT) {}

  /** The live snapshot's hash, or undefined when unknown or a tombstone. */
  liveHash(streamId: string, entityId: string): string | undefined {
    const entry = this.entries.get(keyOf(streamId, entityId));
    return entry === undefined || entry.deleted ? undefined : entry.hash;
  }

  /** Notes snapshots as the store now holds them. */
  remember(streamId: string, snapshots: Iterable<StoredSnapshot>): void {
    if (this.max <= 0) return;
    for (const snapshot of snapshots) {
      const key = keyOf(streamId, snapshot.entityId);
      // Re-inserted, so the Map's order is the order of last use and the first key the oldest.
      this.entries.delete(key);
      this.entries.set(key, { hash: snapshot.hash, deleted: snapshot.deleted === true });
    }
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.max) break;
      this.entries.delete(key);
    }
  }

  /** Forgets some entities of a stream. */
  forget(streamId: string, entityIds: Iterable<string>): void {
    for (const entityId of entityIds) this.entries.delete(keyOf(streamId, entityId));
  }

  /** Forgets a whole stream (deleted, reset). */
  forgetStream(streamId: string): void {
    const prefix = keyOf(streamId, '');
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  /** Entries remembered. */
  get size(): number {
    return this.entries.size;
  }
}

function keyOf(streamId: string, entityId: string): string {
  return `${streamId}\u0000${entityId}`;
}

/**
 * `store`, with every snapshot it writes or reads noted in `hashes`, and every delete
 * forgotten there: a write is noted once it succeeded; a write that failed forgets its
 * entities (it may have landed). A write that a second, concurrent one overtakes is noted in
 * the order the calls end.
 */
export function rememberingSnapshotHashes(store: StateStore, hashes: SnapshotHashes): StateStore {
  return {
    ...delegatingStateStore(store),
    async getSnapshots(streamId, entityIds) {
      const snapshots = await store.getSnapshots(streamId, entityIds);
      hashes.remember(streamId, snapshots.values());
      return snapshots;
    },
    async putSnapshots(streamId, snapshots) {
      try {
        await store.putSnapshots(streamId, snapshots);
      } catch (error) {
        hashes.forget(
          streamId,
          snapshots.map((s) => s.entityId),
        );
        throw error;
      }
      hashes.remember(streamId, snapshots);
    },
    async deleteSnapshots(streamId, entityIds) {
      hashes.forget(streamId, entityIds);
      try {
        await store.deleteSnapshots(streamId, entityIds);
      } finally {
        hashes.forget(streamId, entityIds);
      }
    },
    async deleteStream(streamId) {
      hashes.forgetStream(streamId);
      try {
        await store.deleteStream(streamId);
      } finally {
        hashes.forgetStream(streamId);
      }
    },
  };
}
