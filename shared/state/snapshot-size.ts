import { writeJsonBytes } from '../changes/json-bytes.ts';
import { ValidationError } from '../errors.ts';
import type { StoredSnapshot } from './snapshot-schema.ts';

/**
 * The largest stored snapshot, in bytes of its serialized form. DynamoDB's item limit is
 * 400 KB including attribute names; both stores refuse bigger snapshots so they agree.
 */
export const SNAPSHOT_MAX_BYTES = 400 * 1024;

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
