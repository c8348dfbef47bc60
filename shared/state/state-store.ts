import { z } from 'zod';
import { writeJsonBytes } from '../changes/json-bytes.ts';
import { BridgeError, formatIssuePath, ValidationError } from '../errors.ts';
import { isJsonObject } from '../json-object.ts';

/**
 * The state store port: everything the poller keeps between windows, per stream
 * (one connection and entity type, id `<connectionId>:<entityType>`).
 *
 * Implementations: {@link DynamoDbStateStore} (AWS and dynalite) and
 * {@link MemoryStateStore} (unit tests). Both pass `test/state/state-store.contract.ts`.
 */

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

/** A window being paged through; kept after each page so a cut-off poller resumes at the next page. */
export const StreamWindowSchema = z.object({
  startUtc: z.string(),
  endUtc: z.string(),
  cursor: z.string().nullable(),
  count: z.number().int(),
  pages: z.number().int(),
});
/** A window being paged through. */
export type StreamWindow = z.infer<typeof StreamWindowSchema>;

/**
 * A backfill of a stream that had completed its first sync: a second, bulk read of the history
 * `[history start, endUtc)` beside the stream's live polls, which go on from their own
 * watermark, so no live change waits or is lost meanwhile. The pass keeps its own window,
 * watermark and counters; its records are judged against the kept snapshots (a stale one gives
 * `updated`), and with `emit` every entity that existed when the backfill began is published
 * once as `created` under an id of this backfill (see ChangeContext.backfill in polling).
 */
export const BackfillPassSchema = z.object({
  kind: z.literal('pass'),
  jobId: z.string().min(1),
  emit: z.boolean(),
  /** Epoch ms the backfill began. */
  startedAt: z.number().int(),
  /** ISO instant: the pass reads UpdatedUtc up to here (the stream's watermark when the backfill began). */
  endUtc: z.string(),
  /** ISO instant the pass has read up to; null before its first window. */
  watermark: z.string().nullable(),
  window: StreamWindowSchema.nullable(),
  recordsRead: z.number().int().nonnegative(),
  eventsPublished: z.number().int().nonnegative(),
  /**
   * The stream's own `eventsPublished` (its live polls') when the pass began, so the job knows
   * how many events of the stream it waits to see delivered. Absent on passes stored before it
   * existed.
   */
  liveEventsAtStart: z.number().int().nonnegative().optional(),
  /**
   * Of `eventsPublished`, those the stream's own `eventsPublished` counts too: the `created`
   * events live polls sent ahead of a live change (see PageCounts.announced), and the events of
   * a listing poll that was the whole pass (listingPassDone). Absent: none.
   */
  eventsAnnounced: z.number().int().nonnegative().optional(),
  /** Epoch ms the pass completed; null while it runs. */
  doneAt: z.number().int().nullable(),
});
/** A backfill pass beside live polls (see {@link BackfillPassSchema}). */
export type BackfillPass = z.infer<typeof BackfillPassSchema>;

/**
 * The backfill a stream is doing or last did: a `pass` beside live polls, or, for a stream that
 * had not completed a first sync, `first-sync` (the state was reset and its first sync is the
 * backfill: progress is its watermark, figures its counters and `firstSync`).
 */
export const StreamBackfillSchema = z.discriminatedUnion('kind', [
  BackfillPassSchema,
  z.object({ kind: z.literal('first-sync'), jobId: z.string().min(1) }),
]);
/** The backfill a stream is doing or last did. */
export type StreamBackfill = z.infer<typeof StreamBackfillSchema>;

/** Per-stream poll state: watermark, window in progress, schedule, health. */
export const StreamStateSchema = z.object({
  streamId: z.string().min(1),
  connectionId: z.string(),
  entityType: z.string(),
  /** ISO instant: windows start here (minus overlap); null before the first window. */
  watermark: z.string().nullable(),
  window: StreamWindowSchema.nullable(),
  /** Epoch ms. */
  lastPollAt: z.number().int().nullable(),
  /** Epoch ms. */
  lastSuccessAt: z.number().int().nullable(),
  /** Epoch ms. */
  nextDueAt: z.number().int(),
  consecutiveFailures: z.number().int(),
  lastError: z.string().nullable(),
  /**
   * An authorization error parks a stream: it makes no connector request while its connection
   * still authenticates with the credentials that were refused ({@link parkedCredential}), and
   * is polled again, from its kept watermark, once they changed (a fixed token, a restart with
   * other CONNECTOR_* values) or after a reset.
   */
  parked: z.boolean(),
  parkedReason: z.string().nullable(),
  /** The fingerprint of the credentials refused when the stream was parked (`ConnectorCaller.credential`). */
  parkedCredential: z.string().optional(),
  /** Epoch ms of the last reconciliation sweep. */
  lastSweepAt: z.number().int().nullable(),
  /**
   * The last entity id a sweep still in progress has checked: a sweep asks for the stored ids
   * in their sort order, 1,000 a request, and one cut short (a Lambda's deadline, a stop)
   * resumes after it. Null or absent when no sweep is in progress.
   */
  sweepPosition: z.string().nullable().optional(),
  /**
   * The last product a round of prices still in progress has priced: a round cut short by a
   * Lambda's deadline goes on after it (in the configured order) in the next poll, instead of
   * pricing every product again. Null or absent when no round is in progress.
   */
  pricePosition: z.string().nullable().optional(),
  /**
   * A deletion read (customers: a read on `DeletedUtc`) cut within one of its windows: that
   * window, fixed when its first page was asked, and the Cursor of the last page of it judged.
   * Kept after each page but the last, so a window of more pages than one run reads goes on from
   * there in the next instead of starting again from its newest page every run and never ending.
   * Null or absent when none is in progress.
   */
  deletionWindow: z
    .object({ startUtc: z.string(), endUtc: z.string(), cursor: z.string() })
    .nullable()
    .optional(),
  initialSyncDone: z.boolean(),
  /** Epoch ms when the first sync of an empty stream began (records older than it need no read). */
  initialSyncStartedAt: z.number().int().nullable().optional(),
  /**
   * Epoch ms of a reset (`streams reset`, a backfill of a stream whose first sync had not
   * completed) whose snapshots stored before it (their `updatedAt`) are not all deleted yet:
   * the request only writes this, and the stream's poller deletes them a bounded number per
   * poll before its first sync begins. Null or absent when none are left.
   */
  resetAt: z.number().int().nullable().optional(),
  /**
   * Epoch ms the stream was removed (its connection removed, or reset with its connection gone)
   * while its snapshots are deleted in the background (the AWS admin API): the state is a
   * tombstone (a fresh state with `resetAt` the same instant), hidden from listings and noted in
   * {@link StateStore.listRemovedStreams}; a purge step deletes the snapshots in bounded chunks,
   * then the state. A connection added again with the id takes its stream over at its first poll
   * (the poller clears this; `resetAt` has it delete the old snapshots before its first sync).
   * Null or absent on any other state.
   */
  removedAt: z.number().int().nullable().optional(),
  /** How this stream's first sync publishes, overriding the configured INITIAL_SYNC (a backfill sets it). */
  initialSync: z.enum(['baseline', 'emit']).optional(),
  /**
   * Records read from the connector since the state was created (a reset or a backfill starts
   * it again). Saved with the page cursor or the watermark that commits them, so a resumed
   * window counts each page once. Absent on states stored before it existed: 0.
   */
  recordsRead: z.number().int().nonnegative().optional(),
  /** Events published since the state was created, saved like {@link recordsRead}. */
  eventsPublished: z.number().int().nonnegative().optional(),
  /**
   * Readings of records set aside since the state was created, saved like {@link recordsRead}
   * (a record read again counts again): records that broke their schema, left out of their page
   * while its other records were published (no event for them until they change again). Absent:
   * none.
   */
  recordsSetAside: z.number().int().nonnegative().optional(),
  /**
   * The latest record set aside: the error naming its field and the record (its Id, or its
   * place in the page), and when (epoch ms). Kept until a reset: the change it carried was not
   * published, whatever later windows read. Absent: none.
   */
  lastSetAside: z.object({ error: z.string(), at: z.number().int() }).optional(),
  /**
   * The first sync's figures, kept by the save that completed it: when (epoch ms) and the
   * counters then, so a finished backfill reports what it did, not what the stream read since.
   * Absent until the first sync completes, and on states stored before it existed.
   */
  firstSync: z
    .object({
      doneAt: z.number().int(),
      recordsRead: z.number().int().nonnegative(),
      eventsPublished: z.number().int().nonnegative(),
    })
    .optional(),
  /** The backfill this stream is doing or last did; absent when none touched it. */
  backfill: StreamBackfillSchema.optional(),
  /** Optimistic concurrency: incremented by every successful save. */
  version: z.number().int().nonnegative(),
});
/** Per-stream poll state. */
export type StreamState = z.infer<typeof StreamStateSchema>;

/** Whether a stream state is a removal's tombstone (see StreamState.removedAt). Pure. */
export function isRemovedStream(state: Pick<StreamState, 'removedAt'>): boolean {
  return typeof state.removedAt === 'number';
}

/**
 * A note that a stream was removed in the background and awaits its purge
 * ({@link StateStore.markStreamRemoved}).
 */
export const RemovedStreamNoteSchema = z.object({
  streamId: z.string(),
  /**
   * The removal's instant (its tombstone's removedAt), so a purge drops only the note it read,
   * never the note of a later removal; absent on notes written before it was kept.
   */
  removedAt: z.number().int().optional(),
});
/** A removed stream's note. */
export type RemovedStreamNote = z.infer<typeof RemovedStreamNoteSchema>;

/** Which stream states a listing returns: all, or one connection's. */
export interface StreamFilter {
  connectionId?: string;
}

/** Options of {@link StateStore.listStreams}. */
export interface ListStreamsOptions {
  /** The most states to read (the first by stream id); every one when absent. */
  limit?: number;
  /**
   * Only states whose ids sort after this one (a page's last): the listing starts there
   * rather than reading the states before it again. With a filter, an id of its connection.
   */
  after?: string;
}

/** Whether a stream id belongs to the filter's connection (every id when it names none). */
export function streamMatches(streamId: string, filter: StreamFilter = {}): boolean {
  return filter.connectionId === undefined || streamId.startsWith(`${filter.connectionId}:`);
}

/** Exclusive right of one owner to poll a stream until `expiresAt` (epoch ms). */
export interface Lease {
  streamId: string;
  owner: string;
  expiresAt: number;
}

/** Options of {@link StateStore.scanSnapshots}. */
export interface ScanSnapshotsOptions {
  /** Upper bound of snapshots per yielded page (default {@link SCAN_PAGE_SIZE_DEFAULT}). */
  pageSize?: number;
  /** Only the snapshots whose entity id sorts after this one (in the store's key order). */
  after?: string;
}

/** Default page size of {@link StateStore.scanSnapshots}, in snapshots. */
export const SCAN_PAGE_SIZE_DEFAULT = 1000;

/**
 * The page size a scan uses: `options.pageSize` or the default. Throws ValidationError
 * (path `pageSize`) unless it is a positive integer.
 */
export function scanPageSize(options: ScanSnapshotsOptions = {}): number {
  const pageSize = options.pageSize ?? SCAN_PAGE_SIZE_DEFAULT;
  if (Number.isInteger(pageSize) && pageSize > 0) return pageSize;
  throw new ValidationError('scan options', [
    { path: 'pageSize', message: `must be a positive integer, got ${pageSize}` },
  ]);
}

/**
 * The largest stored snapshot, in bytes of its serialized form. DynamoDB's item limit is
 * 400 KB including attribute names; both stores refuse bigger snapshots so they agree.
 */
export const SNAPSHOT_MAX_BYTES = 400 * 1024;

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

const RECORD_FIELD: readonly string[] = ['record'];

/**
 * Size of a snapshot as one stored item, in bytes, given the UTF-8 length of its record
 * serialized as JSON. A slight over-estimate of DynamoDB's own count (attribute names plus
 * values), so a snapshot that passes always fits.
 */
export function snapshotItemBytes(
  streamId: string,
  snapshot: StoredSnapshot,
  recordBytes: number,
): number {
  // The snapshot's other fields as JSON, counted as written (no copy without the record, no string).
  const restBytes = writeJsonBytes(
    snapshot,
    { sorted: false, skip: RECORD_FIELD },
    (bytes) => bytes.length,
  );
  // Keys repeat the stream id and entity id (pk, sk); 32 bytes cover their names and prefixes.
  return (
    recordBytes +
    restBytes +
    Buffer.byteLength(streamId) +
    Buffer.byteLength(snapshot.entityId) +
    32
  );
}

/**
 * Throws a ValidationError (path `record`) when a snapshot would not fit in one stored item
 * (see {@link SNAPSHOT_MAX_BYTES}).
 */
export function assertSnapshotFits(
  streamId: string,
  snapshot: StoredSnapshot,
  recordBytes: number,
): void {
  const bytes = snapshotItemBytes(streamId, snapshot, recordBytes);
  if (bytes <= SNAPSHOT_MAX_BYTES) return;
  throw new ValidationError(`snapshot ${snapshot.entityId} of stream ${streamId}`, [
    {
      path: 'record',
      message: `stored size ${bytes} bytes exceeds the ${SNAPSHOT_MAX_BYTES}-byte item limit`,
    },
  ]);
}

/**
 * Whether a snapshot fits in one stored item (see {@link SNAPSHOT_MAX_BYTES}); false too for a
 * record that cannot be serialized. Pure.
 */
export function snapshotFits(streamId: string, snapshot: StoredSnapshot): boolean {
  let recordBytes: number;
  try {
    recordBytes = writeJsonBytes(snapshot.record, { sorted: false }, (bytes) => bytes.length);
  } catch {
    return false;
  }
  return snapshotItemBytes(streamId, snapshot, recordBytes) <= SNAPSHOT_MAX_BYTES;
}

/** A validated snapshot with its record serialized, ready to store. */
export interface PreparedSnapshot {
  snapshot: StoredSnapshot;
  /** The record as JSON (JSON.stringify's text). */
  recordJson: string;
  /** Bytes of `recordJson` in UTF-8. */
  recordBytes: number;
}

/**
 * Validates snapshots for {@link StateStore.putSnapshots}: parses each with
 * {@link StoredSnapshotSchema}, serializes its record and checks its size. When an entity id
 * repeats, the last snapshot wins (a batch write may not name one key twice).
 * Throws ValidationError naming the field (e.g. `[3].hash`) before anything is written.
 */
export function prepareSnapshots(
  streamId: string,
  snapshots: readonly StoredSnapshot[],
): PreparedSnapshot[] {
  const byId = new Map<string, PreparedSnapshot>();
  snapshots.forEach((input, index) => {
    const result = StoredSnapshotSchema.safeParse(input);
    if (!result.success) {
      const issues = result.error.issues.map((issue) => ({
        path: formatIssuePath([index, ...issue.path]),
        message: issue.message,
      }));
      throw new ValidationError(`snapshots of stream ${streamId}`, issues, { cause: result.error });
    }
    const { recordJson, recordBytes } = serializeRecord(
      streamId,
      result.data.entityId,
      index,
      result.data.record,
    );
    assertSnapshotFits(streamId, result.data, recordBytes);
    byId.set(result.data.entityId, { snapshot: result.data, recordJson, recordBytes });
  });
  return [...byId.values()];
}

/**
 * A record's JSON text and its UTF-8 length, written as bytes once (JSON.stringify's string
 * would be flattened and measured again for the size check and the item).
 */
function serializeRecord(
  streamId: string,
  entityId: string,
  index: number,
  record: Record<string, unknown>,
): Pick<PreparedSnapshot, 'recordJson' | 'recordBytes'> {
  try {
    return writeJsonBytes(record, { sorted: false }, (bytes) => ({
      recordJson: bytes.toString('utf8'),
      recordBytes: bytes.length,
    }));
  } catch (error) {
    // A BigInt or a cycle cannot be stored; records parsed from the API never hold one.
    throw new ValidationError(
      `snapshot ${entityId} of stream ${streamId}`,
      [{ path: `[${index}].record`, message: 'is not serializable as JSON' }],
      { cause: error },
    );
  }
}
