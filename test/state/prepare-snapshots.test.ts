import { inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/errors.ts';
import { fromSnapshotItem, toSnapshotItem } from '../../shared/state/dynamodb-items.ts';
import {
  prepareSnapshots,
  SNAPSHOT_MAX_BYTES,
  type StoredSnapshot,
  snapshotFits,
} from '../../shared/state/state-store.ts';
import { awkwardRecord } from '../changes/canonical-records.ts';

const STREAM = 'main:customer';
const snapshot = (record: Record<string, unknown>, entityId = 'c1'): StoredSnapshot => ({
  entityId,
  hash: 'h'.repeat(64),
  record,
  scope: { enterpriseId: 'e1' },
  updatedAt: 1_700_000_000_000,
});

/** The stored size of a snapshot as the store counted it: its record's JSON.stringify text. */
function sizeOf(stored: StoredSnapshot): number {
  const { record, ...rest } = stored;
  return (
    Buffer.byteLength(JSON.stringify(record)) +
    Buffer.byteLength(JSON.stringify(rest)) +
    Buffer.byteLength(STREAM) +
    Buffer.byteLength(stored.entityId) +
    32
  );
}

describe('prepareSnapshots', () => {
  it("stores a record's JSON.stringify text and counts its UTF-8 bytes", () => {
    const sent = JSON.parse(JSON.stringify(awkwardRecord())) as Record<string, unknown>;
    const [prepared] = prepareSnapshots(STREAM, [snapshot(sent)]);
    expect(prepared?.recordJson).toBe(JSON.stringify(sent));
    expect(prepared?.recordBytes).toBe(Buffer.byteLength(JSON.stringify(sent)));
  });

  it('deflates a record past the threshold by its bytes, and reads it back whole', () => {
    const record = { Id: 'c1', LastName: 'Иванова'.repeat(10) };
    const bytes = Buffer.byteLength(JSON.stringify(record));
    const [prepared] = prepareSnapshots(STREAM, [snapshot(record)]);
    // Fewer characters than the threshold, more bytes: stored deflated.
    expect(JSON.stringify(record).length).toBeLessThan(bytes);
    const item = toSnapshotItem(STREAM, prepared!, JSON.stringify(record).length);
    expect(inflateRawSync(item.recordZ as Uint8Array).toString()).toBe(JSON.stringify(record));
    expect(fromSnapshotItem(item).record).toEqual(record);
    const plain = toSnapshotItem(STREAM, prepared!, bytes);
    expect(plain.record).toBe(JSON.stringify(record));
  });

  it('takes a snapshot of the largest size that fits and refuses one byte more', () => {
    const unconfirmed = [{ id: 'evt_1', data: { Notes: 'Иванова 😀', n: [1e21, -0] } }];
    for (const extra of [{}, { unconfirmed, deleted: true, expiresAt: 1_800_000_000 }]) {
      const base = { ...snapshot({ Id: 'c1', Notes: '' }), ...extra };
      const room = SNAPSHOT_MAX_BYTES - sizeOf(base);
      // Two bytes of UTF-8 per 'é' (one character), and an 'x' when the room is odd.
      const notes = `${'é'.repeat(Math.floor(room / 2))}${room % 2 === 1 ? 'x' : ''}`;
      const fitting = { ...base, record: { Id: 'c1', Notes: notes } };
      expect(sizeOf(fitting)).toBe(SNAPSHOT_MAX_BYTES);
      expect(snapshotFits(STREAM, fitting)).toBe(true);
      expect(prepareSnapshots(STREAM, [fitting])).toHaveLength(1);
      const over = { ...fitting, record: { Id: 'c1', Notes: `${notes}x` } };
      expect(snapshotFits(STREAM, over)).toBe(false);
      expect(() => prepareSnapshots(STREAM, [over])).toThrow(ValidationError);
    }
  });

  it('refuses a record JSON cannot hold, naming it', () => {
    const bad = snapshot({ Id: 'c1', Amount: 10n });
    expect(snapshotFits(STREAM, bad)).toBe(false);
    expect(() => prepareSnapshots(STREAM, [bad])).toThrow(/is not serializable as JSON/);
  });
});
