import { recordJson } from '../changes/record-json.ts';
import { formatIssuePath, ValidationError } from '../errors.ts';
import { type StoredSnapshot, StoredSnapshotSchema } from './snapshot-schema.ts';
import { assertSnapshotFits } from './snapshot-size.ts';

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
 * A record's JSON text and its UTF-8 length: JSON.stringify's own text (native: about half the
 * time of writing the bytes in JavaScript and decoding them to a string) and its byte length,
 * which the size check and the item need; the text its change event was written with, when it
 * was ({@link recordJson}).
 */
function serializeRecord(
  streamId: string,
  entityId: string,
  index: number,
  record: Record<string, unknown>,
): Pick<PreparedSnapshot, 'recordJson' | 'recordBytes'> {
  try {
    const { json, bytes } = recordJson(record);
    return { recordJson: json, recordBytes: bytes };
  } catch (error) {
    // A BigInt or a cycle cannot be stored; records parsed from the API never hold one.
    throw new ValidationError(
      `snapshot ${entityId} of stream ${streamId}`,
      [{ path: `[${index}].record`, message: 'is not serializable as JSON' }],
      { cause: error },
    );
  }
}
