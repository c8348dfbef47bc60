import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { forgettingSnapshotHashes, SnapshotHashes } from '../../shared/state/snapshot-hashes.ts';
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

describe('SnapshotHashes', () => {
  it('answers a live hash per stream, and none for a tombstone', () => {
    const hashes = new SnapshotHashes();
    hashes.remember(STREAM, [snapshot('a', 'h1'), snapshot('b', 'h2', { deleted: true })]);
    expect(hashes.liveHash(STREAM, 'a')).toBe('h1');
    expect(hashes.liveHash(OTHER, 'a')).toBeUndefined();
    expect(hashes.liveHash(STREAM, 'b')).toBeUndefined();
  });

  it('keeps at most its bound, forgetting the least recently noted first', () => {
    const hashes = new SnapshotHashes(2);
    hashes.remember(STREAM, [snapshot('a', 'h1'), snapshot('b', 'h2')]);
    hashes.remember(STREAM, [snapshot('a', 'h1')]);
    hashes.remember(STREAM, [snapshot('c', 'h3')]);
    expect(hashes.size).toBe(2);
    expect(hashes.liveHash(STREAM, 'b')).toBeUndefined();
    expect(hashes.liveHash(STREAM, 'a')).toBe('h1');
    expect(hashes.liveHash(STREAM, 'c')).toBe('h3');
  });
});

describe('forgettingSnapshotHashes', () => {
  function forgetting(inner: StateStore = new MemoryStateStore()) {
    const hashes = new SnapshotHashes();
    hashes.remember(STREAM, [snapshot('a', 'h1'), snapshot('b', 'h2')]);
    hashes.remember(OTHER, [snapshot('a', 'h3')]);
    return { store: forgettingSnapshotHashes(inner, hashes), hashes };
  }

  it('forgets the entities it writes (the caller notes what it knows) and notes nothing itself', async () => {
    const { store, hashes } = forgetting();
    await store.putSnapshots(STREAM, [snapshot('a', 'h9'), snapshot('c', 'h4')]);
    expect(hashes.liveHash(STREAM, 'a')).toBeUndefined();
    expect(hashes.liveHash(STREAM, 'c')).toBeUndefined();
    expect(hashes.liveHash(STREAM, 'b')).toBe('h2');
    await store.getSnapshots(STREAM, ['a', 'c']);
    expect(hashes.size).toBe(2);
  });

  it('forgets the entities of a write that failed (it may have landed)', async () => {
    const inner = new MemoryStateStore();
    const failing: StateStore = Object.assign(Object.create(inner), {
      putSnapshots: async () => {
        throw new Error('store down');
      },
    });
    const { store, hashes } = forgetting(failing);
    await expect(store.putSnapshots(STREAM, [snapshot('a', 'h9')])).rejects.toThrow('store down');
    expect(hashes.liveHash(STREAM, 'a')).toBeUndefined();
  });

  it('forgets deleted snapshots, and a reset stream whole, leaving other streams alone', async () => {
    const { store, hashes } = forgetting();
    await store.deleteSnapshots(STREAM, ['a']);
    expect(hashes.liveHash(STREAM, 'a')).toBeUndefined();
    expect(hashes.liveHash(STREAM, 'b')).toBe('h2');
    await store.deleteStream(STREAM);
    expect(hashes.liveHash(STREAM, 'b')).toBeUndefined();
    expect(hashes.liveHash(OTHER, 'a')).toBe('h3');
  });
});
