import { describe, expect, it } from 'vitest';
import type { EntityEvent } from '../../shared/changes/entity-event-schema.ts';
import { PUBLISHED_AFTER_MARGIN_MS, storeGuarded } from '../../shared/polling/guarded-snapshots.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import type { StoredSnapshot } from '../../shared/state/state-store.ts';

const STREAM = 'main:customer';

function version(notes: string, updatedUtc: string, updatedAt: number): StoredSnapshot {
  return {
    entityId: 'c-1',
    hash: `hash-${notes}`,
    record: { Id: 'c-1', Notes: notes, UpdatedUtc: updatedUtc },
    updatedAt,
  };
}

const V0 = version('v0', '2026-03-10T09:00:00.000Z', 1_000);
const V1 = version('v1', '2026-03-10T09:00:01.000Z', 2_000);
const V2 = version('v2', '2026-03-10T09:00:02.000Z', 3_000);

/** This writer read V0, published `mine` (when `published`), its publish ending at 5,000. */
async function store(stored: StoredSnapshot | undefined, mine: StoredSnapshot, published = true) {
  const state = new MemoryStateStore();
  if (stored) await state.putSnapshots(STREAM, [stored]);
  const corrections: EntityEvent[] = [];
  const count = await storeGuarded({
    store: state,
    streamId: STREAM,
    connectionId: 'main',
    entityType: 'customer',
    scope: {},
    volatileFields: ['UpdatedUtc'],
    read: new Map([['c-1', V0]]),
    writes: [mine],
    published: new Set(published ? ['c-1'] : []),
    publishedAt: 5_000,
    now: 6_000,
    publish: async (events) => {
      corrections.push(...events);
    },
  });
  const kept = (await state.getSnapshots(STREAM, ['c-1'])).get('c-1');
  const notes = (event: EntityEvent) => [
    (event.data.previous as { Notes?: string }).Notes,
    (event.data.current as { Notes?: string }).Notes,
  ];
  expect(count).toBe(corrections.length);
  return { kept: kept?.record.Notes, corrections: corrections.map(notes) };
}

describe('storeGuarded: a snapshot stored only over the one its writer read', () => {
  it('stores over the version read, with no correction', async () => {
    expect(await store(V0, V1)).toEqual({ kept: 'v1', corrections: [] });
  });

  it('keeps a newer version stored since, and tells it again after this older one', async () => {
    // The other writer detected V2 before this publish ended: its event may have gone first.
    expect(await store(V2, V1)).toEqual({ kept: 'v2', corrections: [['v1', 'v2']] });
  });

  it('keeps a newer version detected after this publish ended, with no correction', async () => {
    const later = { ...V2, updatedAt: 5_000 + PUBLISHED_AFTER_MARGIN_MS + 1 };
    expect(await store(later, V1)).toEqual({ kept: 'v2', corrections: [] });
  });

  it('keeps a newer version with no correction when this writer published nothing of it', async () => {
    expect(await store(V2, V1, false)).toEqual({ kept: 'v2', corrections: [] });
  });

  it('replaces an older version stored since, and tells this one again after it', async () => {
    expect(await store(V1, V2)).toEqual({ kept: 'v2', corrections: [['v1', 'v2']] });
  });

  it('replaces the same content stored since with no correction', async () => {
    const same = { ...V2, record: { ...V2.record, UpdatedUtc: V1.record.UpdatedUtc } };
    expect(await store(same, V2)).toEqual({ kept: 'v2', corrections: [] });
  });

  it('keeps a tombstone stored since', async () => {
    const tombstone = { ...V2, deleted: true };
    expect(await store(tombstone, V1)).toEqual({ kept: 'v2', corrections: [] });
  });

  it('stores over a snapshot another writer created where none was read', async () => {
    const state = new MemoryStateStore();
    await state.putSnapshots(STREAM, [V1]);
    const events: EntityEvent[] = [];
    await storeGuarded({
      store: state,
      streamId: STREAM,
      connectionId: 'main',
      entityType: 'customer',
      scope: {},
      volatileFields: ['UpdatedUtc'],
      read: new Map(),
      writes: [V2],
      published: new Set(['c-1']),
      publishedAt: 5_000,
      now: 6_000,
      publish: async (published) => {
        events.push(...published);
      },
    });
    expect((await state.getSnapshots(STREAM, ['c-1'])).get('c-1')?.hash).toBe(V2.hash);
    expect(events.map((event) => event.type)).toEqual(['customer.updated']);
  });

  it("stores over a snapshot left from before a first sync began (a reset's) with no correction, where none was read", async () => {
    const state = new MemoryStateStore();
    // Stored at 2,000, before the sync that began at 2,500: not the stream's own.
    await state.putSnapshots(STREAM, [V1]);
    const events: EntityEvent[] = [];
    await storeGuarded({
      store: state,
      streamId: STREAM,
      connectionId: 'main',
      entityType: 'customer',
      scope: {},
      volatileFields: ['UpdatedUtc'],
      read: new Map(),
      storedSince: 2_500,
      writes: [V2],
      published: new Set(),
      publishedAt: 5_000,
      now: 6_000,
      publish: async (published) => {
        events.push(...published);
      },
    });
    expect((await state.getSnapshots(STREAM, ['c-1'])).get('c-1')?.hash).toBe(V2.hash);
    expect(events).toEqual([]);
  });
});
