import { BridgeError } from '../errors.ts';
import type { ScanSnapshotsOptions } from './snapshot-scan-options.ts';
import type { SnapshotReplacement, StoredSnapshot } from './snapshot-schema.ts';
import type { ListStreamsOptions, StreamFilter } from './stream-filter.ts';
import type { RemovedStreamNote, StreamState } from './stream-state-schema.ts';

export { type PreparedSnapshot, prepareSnapshots } from './prepare-snapshots.ts';
export {
  SCAN_PAGE_SIZE_DEFAULT,
  type ScanSnapshotsOptions,
  scanPageSize,
} from './snapshot-scan-options.ts';
export {
  isSnapshotVersion,
  type SnapshotReplacement,
  SnapshotScopeSchema,
  type SnapshotVersion,
  type StoredSnapshot,
  StoredSnapshotSchema,
} from './snapshot-schema.ts';
export {
  assertSnapshotFits,
  SNAPSHOT_MAX_BYTES,
  snapshotFits,
  snapshotItemBytes,
} from './snapshot-size.ts';
export {
  type BackfillPass,
  BackfillPassSchema,
  type StreamBackfill,
  StreamBackfillSchema,
} from './stream-backfill-schema.ts';
export { type ListStreamsOptions, type StreamFilter, streamMatches } from './stream-filter.ts';
export {
  isRemovedStream,
  type RemovedStreamNote,
  RemovedStreamNoteSchema,
  type StreamState,
  StreamStateSchema,
} from './stream-state-schema.ts';
export { type StreamWindow, StreamWindowSchema } from './stream-window-schema.ts';

/**
 * The state store port: everything the poller keeps between windows, per stream
 * (one connection and entity type, id `<connectionId>:<entityType>`).
 *
 * Implementations: {@link DynamoDbStateStore} (AWS and dynalite) and
 * {@link MemoryStateStore} (unit tests). Both pass `test/state/state-store.contract.ts`.
 */

/** Exclusive right of one owner to poll a stream until `expiresAt` (epoch ms). */
export interface Lease {
  streamId: string;
  owner: string;
  expiresAt: number;
}
/** Storage of snapshots, stream states and leases. All methods are safe to repeat. */
export interface StateStore {
  /** Reads the snapshots of `entityIds` (duplicates allowed); unknown ids are absent from the map. */
  getSnapshots(
    streamId: string,
    entityIds: readonly string[],
  ): Promise<Map<string, StoredSnapshot>>;
  /** Stores snapshots, replacing any with the same entity id. Throws ValidationError on a bad or oversized snapshot, before writing any. */
  putSnapshots(streamId: string, snapshots: readonly StoredSnapshot[]): Promise<void>;
  /**
   * Stores each snapshot only over the one its writer read: a conditional write per snapshot,
   * refused when another writer (a poll, the write-through proxy) stored one of that entity
   * since. Returns the entity ids refused; the others are stored. Throws ValidationError as
   * {@link putSnapshots} does, before writing any.
   */
  replaceSnapshots(
    streamId: string,
    replacements: readonly SnapshotReplacement[],
  ): Promise<string[]>;
  /** Removes snapshots for good (unknown ids are ignored). */
  deleteSnapshots(streamId: string, entityIds: readonly string[]): Promise<void>;
  /**
   * Yields every snapshot of the stream (after `options.after`, if given), tombstones included,
   * in entity id order, in pages of at most `pageSize`.
   */
  scanSnapshots(streamId: string, options?: ScanSnapshotsOptions): AsyncIterable<StoredSnapshot[]>;
  /** Reads one stream state (strongly consistent). */
  getStream(streamId: string): Promise<StreamState | undefined>;
  /**
   * Reads every stream state, ordered by stream id; with `connectionId`, only that
   * connection's (stream ids are `<connectionId>:<entityType>`); with `options.limit`, the
   * first that many at most, and no read beyond them.
   */
  listStreams(filter?: StreamFilter, options?: ListStreamsOptions): Promise<StreamState[]>;
  /**
   * Writes the stream state if the stored version equals expectedVersion (or none exists when
   * expectedVersion is 0); returns the new state with version expectedVersion+1; throws
   * {@link StateConflictError} otherwise. `state.version` itself is ignored.
   */
  saveStream(state: StreamState, expectedVersion: number): Promise<StreamState>;
  /** Reset: removes the state, every snapshot and the lease of the stream. */
  deleteStream(streamId: string): Promise<void>;
  /**
   * Removes the stream's state alone, if it is stored at `expectedVersion`; false when it is not
   * (changed since it was read, or gone). Its snapshots and lease stay.
   */
  deleteStreamState(streamId: string, expectedVersion: number): Promise<boolean>;
  /**
   * Notes a stream whose state is a removal tombstone (StreamState.removedAt), for the purge
   * step to find ({@link listRemovedStreams}) without reading every stream state.
   */
  markStreamRemoved(streamId: string, removedAt: number): Promise<void>;
  /**
   * Drops a note of {@link markStreamRemoved} only as it was listed (same `removedAt`): false,
   * and the note kept, when a later removal noted the stream again meanwhile (or none is left).
   */
  unmarkStreamRemoved(note: RemovedStreamNote): Promise<boolean>;
  /** The notes of removed streams, by stream id, `limit` at most. */
  listRemovedStreams(limit: number): Promise<RemovedStreamNote[]>;
  /**
   * Conditional write: succeeds when no lease exists, it expired (expiresAt <= now), or the
   * owner is the same (a renewal); returns null when another owner holds a valid lease.
   */
  acquireLease(streamId: string, owner: string, ttlMs: number, now: number): Promise<Lease | null>;
  /** Drops the lease if `owner` holds it; does nothing otherwise. */
  releaseLease(streamId: string, owner: string): Promise<void>;
}

/** A stream state changed since it was read: the save was refused. Not retryable as is. */
export class StateConflictError extends BridgeError {
  override name = 'StateConflictError';
  readonly streamId: string;
  readonly expectedVersion: number;

  constructor(streamId: string, expectedVersion: number, options: { cause?: unknown } = {}) {
    super(`stream ${streamId} is not at version ${expectedVersion}: it changed since it was read`, {
      ...options,
      retryable: false,
    });
    this.streamId = streamId;
    this.expectedVersion = expectedVersion;
  }
}
