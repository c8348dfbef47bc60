import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { rememberingSnapshotHashes, SnapshotHashes } from '../../shared/state/snapshot-hashes.ts';
import type { StateStore, StoredSnapshot } from '../../shared/state/state-store.ts';

const STREAM = 'main:customer';
const OTHER = 'main:reservation';

const snapshot = (entityId: string, hash: string, extra: Partial<StoredSnapshot> = {}) => ({
  entityId,
  hash,
  record: { Id: entityId },
  updatedAt: 1,
  ...extra,
});

function remembering(max?: number): { store: StateStore; hashes: SnapshotHashes } {
  const hashes = new SnapshotHashes(max);
  return { store: rememberingSnapshotHashes(new MemoryStateStore(), hashes), hashes };
}

describe('rememberingSnapshotHashes', () => {
  it('remembers what it writes and what it reads, per stream', async () => {
    const { store, hashes } = remembering();
    await store.putSnapshots(STREAM, [snapshot('a', 'h1')]);
    expect(hashes.liveHash(STREAM, 'a')).toBe('h1');
    expect(hashes.liveHash(OTHER, 'a')).toBeUndefined();

    const other = new SnapshotHashes();
    const second = rememberingSnapshotHashes(store, other);
    await second.getSnapshots(STREAM, ['a', 'missing']);
    expect(other.liveHash(STREAM, 'a')).toBe('h1');
    expect(other.liveHash(STREAM, 'missing')).toBeUndefined();
  });

  it('takes a tombstone for no live hash', async () => {
    const { store, hashes } = remembering();
    await store.putSnapshots(STREAM, [snapshot('a', 'h1', { deleted: true, expiresAt: 9 })]);
    expect(hashes.liveHash(STREAM, 'a')).toBeUndefined();
  });

  it('forgets deleted snapshots, and a reset stream whole, leaving other streams alone', async () => {
    const { store, hashes } = remembering();
    await store.putSnapshots(STREAM, [snapshot('a', 'h1'), snapshot('b', 'h2')]);
    await store.putSnapshots(OTHER, [snapshot('a', 'h3')]);
    await store.deleteSnapshots(STREAM, ['a']);
    expect(hashes.liveHash(STREAM, 'a')).toBeUndefined();
    expect(hashes.liveHash(STREAM, 'b')).toBe('h2');
    await store.deleteStream(STREAM);
    expect(hashes.liveHash(STREAM, 'b')).toBeUndefined();
    expect(hashes.liveHash(OTHER, 'a')).toBe('h3');
  });

  it('forgets the entities of a write that failed (it may have landed)', async () => {
    const hashes = new SnapshotHashes();
    const inner = new MemoryStateStore();
    const failing: StateStore = Object.assign(Object.create(inner), {
      putSnapshots: async () => {
        throw new Error('store down');
      },
    });
    await rememberingSnapshotHashes(inner, hashes).putSnapshots(STREAM, [snapshot('a', 'h1')]);
    await expect(
      rememberingSnapshotHashes(failing, hashes).putSnapshots(STREAM, [snapshot('a', 'h2')]),
    ).rejects.toThrow('store down');
    expect(hashes.liveHash(STREAM, 'a')).toBeUndefined();
  });

  it('keeps at most its bound, forgetting the least recently noted first', async () => {
    const { store, hashes } = remembering(2);
    await store.putSnapshots(STREAM, [snapshot('a', 'h1'), snapshot('b', 'h2')]);
    await store.getSnapshots(STREAM, ['a']);
    await store.putSnapshots(STREAM, [snapshot('c', 'h3')]);
    expect(hashes.size).toBe(2);
    expect(hashes.liveHash(STREAM, 'b')).toBeUndefined();
    expect(hashes.liveHash(STREAM, 'a')).toBe('h1');
    expect(hashes.liveHash(STREAM, 'c')).toBe('h3');
  });
});
