import { parseOrThrow } from '../errors.ts';
import {
  isSnapshotVersion,
  type Lease,
  type ListStreamsOptions,
  type PreparedSnapshot,
  prepareSnapshots,
  type RemovedStreamNote,
  type ScanSnapshotsOptions,
  type SnapshotReplacement,
  StateConflictError,
  type StateStore,
  type StoredSnapshot,
  type StreamFilter,
  type StreamState,
  StreamStateSchema,
  scanPageSize,
  streamMatches,
} from './state-store.ts';

/** A snapshot as kept in memory: the record serialized, as DynamoDB keeps it, so callers never share objects. */
interface StoredEntry {
  snapshot: Omit<StoredSnapshot, 'record'>;
  recordJson: string;
}

/**
 * {@link StateStore} in memory, with the semantics of {@link DynamoDbStateStore} (same
 * validation, size limit, versioning and lease rules): for fast unit tests of the poller.
 * Returned values are copies. Not shared between processes.
 */
export class MemoryStateStore implements StateStore {
  private readonly snapshots = new Map<string, Map<string, StoredEntry>>();
  private readonly streams = new Map<string, StreamState>();
  private readonly leases = new Map<string, Lease>();
  /** Removed streams' notes: stream id → the removal's instant. */
  private readonly removed = new Map<string, number | undefined>();

  async getSnapshots(
    streamId: string,
    entityIds: readonly string[],
  ): Promise<Map<string, StoredSnapshot>> {
    const stored = this.snapshots.get(streamId);
    const found = new Map<string, StoredSnapshot>();
    for (const entityId of entityIds) {
      const entry = stored?.get(entityId);
      if (entry) found.set(entityId, restore(entry));
    }
    return found;
  }

  async putSnapshots(streamId: string, snapshots: readonly StoredSnapshot[]): Promise<void> {
    this.store(streamId, prepareSnapshots(streamId, snapshots));
  }

  private store(streamId: string, prepared: readonly PreparedSnapshot[]): void {
    let stored = this.snapshots.get(streamId);
    if (!stored) {
      stored = new Map();
      this.snapshots.set(streamId, stored);
    }
    for (const { snapshot, recordJson } of prepared) {
      const { record: _record, ...rest } = snapshot;
      stored.set(snapshot.entityId, { snapshot: structuredClone(rest), recordJson });
    }
  }

  async replaceSnapshots(
    streamId: string,
    replacements: readonly SnapshotReplacement[],
  ): Promise<string[]> {
    const expected = new Map(replacements.map((r) => [r.snapshot.entityId, r.expected]));
    const prepared = prepareSnapshots(
      streamId,
      replacements.map((replacement) => replacement.snapshot),
    );
    const refused: string[] = [];
    for (const item of prepared) {
      const { entityId } = item.snapshot;
      const entry = this.snapshots.get(streamId)?.get(entityId);
      if (isSnapshotVersion(entry?.snapshot, expected.get(entityId))) this.store(streamId, [item]);
      else refused.push(entityId);
    }
    return refused;
  }

  async deleteSnapshots(streamId: string, entityIds: readonly string[]): Promise<void> {
    const stored = this.snapshots.get(streamId);
    for (const entityId of entityIds) stored?.delete(entityId);
  }

  async *scanSnapshots(
    streamId: string,
    options: ScanSnapshotsOptions = {},
  ): AsyncIterable<StoredSnapshot[]> {
    const pageSize = scanPageSize(options);
    // Sorted like DynamoDB's sort key order; the id list is taken up front, as a Query
    // pages through what exists when each page is read.
    const after = options.after;
    const ids = [...(this.snapshots.get(streamId)?.keys() ?? [])]
      .filter((id) => after === undefined || id > after)
      .sort();
    for (let start = 0; start < ids.length; start += pageSize) {
      const page: StoredSnapshot[] = [];
      for (const entityId of ids.slice(start, start + pageSize)) {
        const entry = this.snapshots.get(streamId)?.get(entityId);
        if (entry) page.push(restore(entry));
      }
      if (page.length > 0) yield page;
    }
  }

  async getStream(streamId: string): Promise<StreamState | undefined> {
    const state = this.streams.get(streamId);
    return state ? structuredClone(state) : undefined;
  }

  async listStreams(filter?: StreamFilter, options?: ListStreamsOptions): Promise<StreamState[]> {
    return [...this.streams.values()]
      .filter((state) => streamMatches(state.streamId, filter))
      .filter((state) => options?.after === undefined || state.streamId > options.after)
      .sort((a, b) => (a.streamId < b.streamId ? -1 : a.streamId > b.streamId ? 1 : 0))
      .slice(0, options?.limit)
      .map((state) => structuredClone(state));
  }

  async saveStream(state: StreamState, expectedVersion: number): Promise<StreamState> {
    const next = parseOrThrow(
      StreamStateSchema,
      { ...state, version: expectedVersion + 1 },
      `stream state ${state.streamId}`,
    );
    const current = this.streams.get(state.streamId);
    const matches =
      expectedVersion === 0 ? current === undefined : current?.version === expectedVersion;
    if (!matches) throw new StateConflictError(state.streamId, expectedVersion);
    this.streams.set(next.streamId, structuredClone(next));
    return next;
  }

  async deleteStream(streamId: string): Promise<void> {
    this.snapshots.delete(streamId);
    this.leases.delete(streamId);
    this.streams.delete(streamId);
  }

  async deleteStreamState(streamId: string, expectedVersion: number): Promise<boolean> {
    if (this.streams.get(streamId)?.version !== expectedVersion) return false;
    this.streams.delete(streamId);
    return true;
  }

  async markStreamRemoved(streamId: string, removedAt: number): Promise<void> {
    this.removed.set(streamId, removedAt);
  }

  async unmarkStreamRemoved(note: RemovedStreamNote): Promise<boolean> {
    if (!this.removed.has(note.streamId)) return false;
    if (this.removed.get(note.streamId) !== note.removedAt) return false;
    return this.removed.delete(note.streamId);
  }

  async listRemovedStreams(limit: number): Promise<RemovedStreamNote[]> {
    return [...this.removed.keys()]
      .sort()
      .slice(0, Math.max(0, limit))
      .map((streamId) => {
        const removedAt = this.removed.get(streamId);
        return removedAt === undefined ? { streamId } : { streamId, removedAt };
      });
  }

  async acquireLease(
    streamId: string,
    owner: string,
    ttlMs: number,
    now: number,
  ): Promise<Lease | null> {
    const current = this.leases.get(streamId);
    if (current && current.expiresAt > now && current.owner !== owner) return null;
    const lease = { streamId, owner, expiresAt: now + ttlMs };
    this.leases.set(streamId, lease);
    return { ...lease };
  }

  async releaseLease(streamId: string, owner: string): Promise<void> {
    if (this.leases.get(streamId)?.owner === owner) this.leases.delete(streamId);
  }
}

function restore(entry: StoredEntry): StoredSnapshot {
  return { ...structuredClone(entry.snapshot), record: JSON.parse(entry.recordJson) };
}
