import { delegatingStateStore, type StateStore, type StoredSnapshot } from './state-store.ts';

/** The hashes a process remembers by default, ~2.5 MB: a burst of 5,000 updates needs 5,000. */
export const SNAPSHOT_HASHES_MAX_DEFAULT = 10_000;

/** What is remembered of one stored snapshot. */
interface RememberedSnapshot {
  hash: string;
  deleted: boolean;
}

/**
 * The content hash of snapshots as live detection last stored or read them (a caught-up
 * stream's poll; a first sync or a backfill notes nothing). Detection compares a fetched
 * record's hash with it before reading the store: a record re-read unchanged (the overlap of
 * every window re-reads the last seconds' records) needs no snapshot read. Only sound where
 * every write of the store goes through this process's store wrapped by
 * {@link forgettingSnapshotHashes} (the local runtime: one process opens a data dir, and its
 * pollers, admin API and write-through share one store); a Lambda poller does not use it.
 * Bounded: past `max` entries the oldest is forgotten (a miss only reads the store).
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
 * `store`, with every snapshot it writes or deletes forgotten in `hashes` (a write once it
 * ended, failed or not: it may have landed), and every reset stream forgotten whole. Nothing is
 * noted here: the caller that knows a hash is current notes it ({@link SnapshotHashes.remember})
 * after its own write or read, so a bulk write (a backfill's pages) costs no memory.
 */
export function forgettingSnapshotHashes(store: StateStore, hashes: SnapshotHashes): StateStore {
  return {
    ...delegatingStateStore(store),
    async putSnapshots(streamId, snapshots) {
      try {
        await store.putSnapshots(streamId, snapshots);
      } finally {
        hashes.forget(
          streamId,
          snapshots.map((s) => s.entityId),
        );
      }
    },
    async deleteSnapshots(streamId, entityIds) {
      try {
        await store.deleteSnapshots(streamId, entityIds);
      } finally {
        hashes.forget(streamId, entityIds);
      }
    },
    async deleteStream(streamId) {
      try {
        await store.deleteStream(streamId);
      } finally {
        hashes.forgetStream(streamId);
      }
    },
  };
}
