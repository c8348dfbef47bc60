import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/errors.ts';
import {
  SNAPSHOT_MAX_BYTES,
  StateConflictError,
  type StateStore,
  type StoredSnapshot,
  type StreamState,
} from '../../shared/state/state-store.ts';

/** Builds a fresh, empty store for one test. */
export type StateStoreFactory = () => Promise<StateStore>;

/** A snapshot with a realistic record. */
export function snapshot(
  entityId: string,
  overrides: Partial<StoredSnapshot> = {},
): StoredSnapshot {
  return {
    entityId,
    hash: `hash-${entityId}`,
    record: {
      Id: entityId,
      FirstName: 'Ada',
      LastName: `Lovelace ${entityId}`,
      Email: null,
      Classifications: ['Returning', 'Vip'],
      Address: { Line1: 'Main street 1', CountryCode: 'GB' },
      UpdatedUtc: '2026-01-01T00:00:00Z',
    },
    scope: { enterpriseId: 'ent-1', chainId: 'chain-1' },
    updatedAt: 1_767_225_600_000,
    ...overrides,
  };
}

/** A stream state as the poller would first save it. */
export function streamState(streamId: string, overrides: Partial<StreamState> = {}): StreamState {
  const [connectionId = 'main', entityType = 'customer'] = streamId.split(':');
  return {
    streamId,
    connectionId,
    entityType,
    watermark: null,
    window: null,
    lastPollAt: null,
    lastSuccessAt: null,
    nextDueAt: 1_767_225_600_000,
    consecutiveFailures: 0,
    lastError: null,
    parked: false,
    parkedReason: null,
    lastSweepAt: null,
    initialSyncDone: false,
    version: 0,
    ...overrides,
  };
}

async function collect(pages: AsyncIterable<StoredSnapshot[]>): Promise<StoredSnapshot[][]> {
  const all: StoredSnapshot[][] = [];
  for await (const page of pages) all.push(page);
  return all;
}

function ids(count: number, prefix = 'e'): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);
}

/**
 * Registers the behaviour every {@link StateStore} must have. Each test builds its own store
 * with `createStore`, so implementations need no clean-up between tests.
 */
export function describeStateStoreContract(name: string, createStore: StateStoreFactory): void {
  describe(`${name}: snapshots`, () => {
    it('stores and reads back 250 snapshots in one call, across batch limits', async () => {
      const store = await createStore();
      const written = ids(250).map((id) => snapshot(id));
      await store.putSnapshots('main:customer', written);

      const read = await store.getSnapshots('main:customer', ids(250));
      expect(read.size).toBe(250);
      for (const expected of written) expect(read.get(expected.entityId)).toEqual(expected);
    });

    it('leaves unknown ids out of the result and tolerates duplicate ids', async () => {
      const store = await createStore();
      await store.putSnapshots('main:customer', [snapshot('a'), snapshot('b')]);

      const read = await store.getSnapshots('main:customer', ['a', 'missing', 'a', 'other']);
      expect([...read.keys()]).toEqual(['a']);
      expect(await store.getSnapshots('main:customer', [])).toEqual(new Map());
      expect(await store.getSnapshots('unknown:stream', ['a'])).toEqual(new Map());
    });

    it('keeps snapshots of different streams apart', async () => {
      const store = await createStore();
      await store.putSnapshots('main:customer', [snapshot('same', { hash: 'customer' })]);
      await store.putSnapshots('main:resource', [snapshot('same', { hash: 'resource' })]);

      expect((await store.getSnapshots('main:customer', ['same'])).get('same')?.hash).toBe(
        'customer',
      );
      expect((await store.getSnapshots('main:resource', ['same'])).get('same')?.hash).toBe(
        'resource',
      );
    });

    it('replaces a stored snapshot, and the last one wins when an id repeats in one call', async () => {
      const store = await createStore();
      await store.putSnapshots('main:customer', [snapshot('a', { hash: 'v1' })]);
      await store.putSnapshots('main:customer', [
        snapshot('a', { hash: 'v2' }),
        snapshot('b'),
        snapshot('a', { hash: 'v3', record: { Id: 'a' } }),
      ]);

      const read = await store.getSnapshots('main:customer', ['a', 'b']);
      expect(read.get('a')).toEqual(snapshot('a', { hash: 'v3', record: { Id: 'a' } }));
      expect(read.size).toBe(2);
    });

    it('replaces snapshots only over the version their writer read, and names those refused', async () => {
      const store = await createStore();
      const read = snapshot('a', { hash: 'v1', updatedAt: 1 });
      await store.putSnapshots('main:customer', [read, snapshot('b', { hash: 'v1' })]);
      // Another writer stores b after it was read.
      await store.putSnapshots('main:customer', [snapshot('b', { hash: 'v2', updatedAt: 2 })]);
      const refused = await store.replaceSnapshots('main:customer', [
        { snapshot: snapshot('a', { hash: 'v3', updatedAt: 3 }), expected: read },
        { snapshot: snapshot('b', { hash: 'v3', updatedAt: 3 }), expected: snapshot('b') },
        { snapshot: snapshot('c', { hash: 'v3', updatedAt: 3 }), expected: undefined },
        { snapshot: snapshot('d', { hash: 'v3', updatedAt: 3 }), expected: read },
      ]);
      expect(refused.sort()).toEqual(['b', 'd']);
      const stored = await store.getSnapshots('main:customer', ['a', 'b', 'c', 'd']);
      expect(stored.get('a')?.hash).toBe('v3');
      expect(stored.get('b')?.hash).toBe('v2');
      expect(stored.get('c')?.hash).toBe('v3');
      expect(stored.has('d')).toBe(false);
      // None expected where one is stored: refused.
      expect(
        await store.replaceSnapshots('main:customer', [
          { snapshot: snapshot('c', { hash: 'v4' }), expected: undefined },
        ]),
      ).toEqual(['c']);
      // A bad snapshot is refused before any is written.
      await expect(
        store.replaceSnapshots('main:customer', [
          { snapshot: snapshot('e'), expected: undefined },
          { snapshot: snapshot('f', { updatedAt: 1.5 }), expected: undefined },
        ]),
      ).rejects.toBeInstanceOf(ValidationError);
      expect((await store.getSnapshots('main:customer', ['e'])).size).toBe(0);
    });

    it('replaces large snapshots (stored deflated by DynamoDB) over the version read, as small ones, and refuses an oversized one before any write', async () => {
      const store = await createStore();
      const large = (hash: string, updatedAt: number) =>
        snapshot('big', { hash, updatedAt, record: { Id: 'big', Notes: hash.repeat(20_000) } });
      const read = large('v1', 1);
      await store.putSnapshots('main:customer', [read]);
      await store.putSnapshots('main:customer', [large('v2', 2)]);
      // Read before the v2 store: refused; over v2: stored, record and all.
      expect(
        await store.replaceSnapshots('main:customer', [
          { snapshot: large('v3', 3), expected: read },
        ]),
      ).toEqual(['big']);
      expect(
        await store.replaceSnapshots('main:customer', [
          { snapshot: large('v3', 3), expected: large('v2', 2) },
        ]),
      ).toEqual([]);
      expect((await store.getSnapshots('main:customer', ['big'])).get('big')).toEqual(
        large('v3', 3),
      );
      const oversized = snapshot('huge', { record: { Id: 'huge', Notes: 'x'.repeat(420_000) } });
      await expect(
        store.replaceSnapshots('main:customer', [
          { snapshot: snapshot('small'), expected: undefined },
          { snapshot: oversized, expected: undefined },
        ]),
      ).rejects.toBeInstanceOf(ValidationError);
      expect((await store.getSnapshots('main:customer', ['small', 'huge'])).size).toBe(0);
    });

    it('stores a snapshot without optional fields exactly as given', async () => {
      const store = await createStore();
      const bare: StoredSnapshot = { entityId: 'bare', hash: 'h', record: {}, updatedAt: 5 };
      await store.putSnapshots('main:customer', [bare]);

      expect((await store.getSnapshots('main:customer', ['bare'])).get('bare')).toEqual(bare);
    });

    it('keeps tombstones with their expiry and returns them from reads and scans', async () => {
      const store = await createStore();
      const tombstone = snapshot('gone', { deleted: true, expiresAt: 1_767_312_000 });
      await store.putSnapshots('main:customer', [tombstone, snapshot('alive')]);

      expect((await store.getSnapshots('main:customer', ['gone'])).get('gone')).toEqual(tombstone);
      const scanned = (await collect(store.scanSnapshots('main:customer'))).flat();
      expect(scanned.find((s) => s.entityId === 'gone')).toEqual(tombstone);
      expect(scanned.find((s) => s.entityId === 'alive')?.deleted).toBeUndefined();
    });

    it('keeps the unconfirmed events of a snapshot through put, conditional replace and scan, and drops them when stored without', async () => {
      const store = await createStore();
      const events = [
        { id: 'evt_1', type: 'customer.updated', data: { patch: [{ op: 'replace', path: '/A' }] } },
        { id: 'evt_2', type: 'customer.updated', data: { current: { Notes: 'é "quoted"' } } },
      ];
      const pending = snapshot('pending', { unconfirmed: events });
      await store.putSnapshots('main:customer', [pending]);
      expect((await store.getSnapshots('main:customer', ['pending'])).get('pending')).toEqual(
        pending,
      );

      const replaced = snapshot('pending', {
        updatedAt: pending.updatedAt + 1,
        unconfirmed: [events[1]!],
      });
      expect(
        await store.replaceSnapshots('main:customer', [{ snapshot: replaced, expected: pending }]),
      ).toEqual([]);
      const scanned = (await collect(store.scanSnapshots('main:customer'))).flat();
      expect(scanned).toEqual([replaced]);

      const { unconfirmed: _unconfirmed, ...cleared } = replaced;
      await store.putSnapshots('main:customer', [cleared]);
      const read = (await store.getSnapshots('main:customer', ['pending'])).get('pending');
      expect(read).toEqual(cleared);
      expect(read).not.toHaveProperty('unconfirmed');
    });

    it('returns copies: changing a returned record does not change the stored one', async () => {
      const store = await createStore();
      const written = snapshot('a');
      await store.putSnapshots('main:customer', [written]);
      written.record.FirstName = 'changed after put';
      const first = (await store.getSnapshots('main:customer', ['a'])).get('a');
      if (first) first.record.FirstName = 'changed after get';

      const second = (await store.getSnapshots('main:customer', ['a'])).get('a');
      expect(second?.record.FirstName).toBe('Ada');
    });

    it('deletes only the named snapshots and ignores unknown ids', async () => {
      const store = await createStore();
      await store.putSnapshots(
        'main:customer',
        ids(30).map((id) => snapshot(id)),
      );
      await store.deleteSnapshots('main:customer', [...ids(27), 'never-stored']);

      const read = await store.getSnapshots('main:customer', ids(30));
      expect([...read.keys()].sort()).toEqual(ids(30).slice(27));
    });

    it('scans every snapshot of a stream in pages no larger than pageSize', async () => {
      const store = await createStore();
      await store.putSnapshots(
        'main:customer',
        ids(23).map((id) => snapshot(id)),
      );
      await store.putSnapshots('main:resource', [snapshot('not-in-scan')]);

      const pages = await collect(store.scanSnapshots('main:customer', { pageSize: 10 }));
      expect(pages.length).toBeGreaterThanOrEqual(3);
      for (const page of pages) expect(page.length).toBeLessThanOrEqual(10);
      const scanned = pages.flat().map((s) => s.entityId);
      expect(scanned.sort()).toEqual(ids(23));
      expect(pages.flat()[0]).toEqual(snapshot('e0000'));
      expect(await collect(store.scanSnapshots('unknown:stream'))).toEqual([]);
    });

    it('scans in entity id order from after a given id, whether or not that id is stored', async () => {
      const store = await createStore();
      await store.putSnapshots(
        'main:customer',
        ids(23).map((id) => snapshot(id)),
      );
      const scan = async (after: string) =>
        (await collect(store.scanSnapshots('main:customer', { after, pageSize: 5 })))
          .flat()
          .map((s) => s.entityId);

      expect(await scan('e0009')).toEqual(ids(23).slice(10));
      expect(await scan('e0009x')).toEqual(ids(23).slice(10));
      expect(await scan('e0022')).toEqual([]);
    });

    it('refuses a scan page size that is not a positive integer', async () => {
      const store = await createStore();
      await store.putSnapshots('main:customer', [snapshot('a')]);

      for (const pageSize of [0, -1, 2.5]) {
        await expect(
          collect(store.scanSnapshots('main:customer', { pageSize })),
        ).rejects.toMatchObject({ name: 'ValidationError', path: 'pageSize' });
      }
    });

    it('rejects a record that cannot be serialized as JSON, naming it', async () => {
      const store = await createStore();
      const unserializable = snapshot('big', { record: { Amount: 10n } });

      const error = await store.putSnapshots('main:customer', [unserializable]).catch((e) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.path).toBe('[0].record');
    });

    it('rejects a record that is not a JSON object, naming it', async () => {
      const store = await createStore();
      for (const record of [null, ['a'], 'text']) {
        const invalid = { ...snapshot('c'), record } as unknown as StoredSnapshot;
        const error = await store.putSnapshots('main:customer', [invalid]).catch((e) => e);
        expect(error).toBeInstanceOf(ValidationError);
        expect(error.path).toBe('[0].record');
      }
    });

    it('rejects an invalid snapshot naming the field, before writing any', async () => {
      const store = await createStore();
      const invalid = { ...snapshot('b'), hash: 42 } as unknown as StoredSnapshot;

      const error = await store
        .putSnapshots('main:customer', [snapshot('a'), invalid])
        .catch((e) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.path).toBe('[1].hash');
      expect((await store.getSnapshots('main:customer', ['a', 'b'])).size).toBe(0);
    });

    it('rejects a snapshot larger than the item limit, naming the record', async () => {
      const store = await createStore();
      const huge = snapshot('huge', { record: { Notes: 'x'.repeat(SNAPSHOT_MAX_BYTES) } });

      const error = await store
        .putSnapshots('main:customer', [snapshot('a'), huge])
        .catch((e) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.path).toBe('record');
      expect(error.message).toContain('huge');
      expect((await store.getSnapshots('main:customer', ['a', 'huge'])).size).toBe(0);
    });
  });

  describe(`${name}: stream state`, () => {
    it('creates a stream at version 1 and reads it back unchanged', async () => {
      const store = await createStore();
      const saved = await store.saveStream(streamState('main:customer'), 0);

      expect(saved).toEqual(streamState('main:customer', { version: 1 }));
      expect(await store.getStream('main:customer')).toEqual(saved);
      expect(await store.getStream('main:resource')).toBeUndefined();
    });

    it('increments the version on each save and keeps the window in progress', async () => {
      const store = await createStore();
      const first = await store.saveStream(streamState('main:customer'), 0);
      const window = {
        startUtc: '2026-01-01T00:00:00.000Z',
        endUtc: '2026-01-01T00:05:00.000Z',
        cursor: 'cursor-2',
        count: 1000,
        pages: 2,
      };
      const second = await store.saveStream(
        { ...first, window, lastPollAt: 10, lastError: 'timeout', consecutiveFailures: 1 },
        first.version,
      );

      expect(second.version).toBe(2);
      expect(await store.getStream('main:customer')).toEqual({
        ...streamState('main:customer'),
        window,
        lastPollAt: 10,
        lastError: 'timeout',
        consecutiveFailures: 1,
        version: 2,
      });
    });

    it('refuses a save from a stale version with StateConflictError and keeps the stored state', async () => {
      const store = await createStore();
      const first = await store.saveStream(streamState('main:customer'), 0);
      await store.saveStream({ ...first, watermark: '2026-01-01T00:05:00.000Z' }, 1);

      const stale = await store
        .saveStream({ ...first, watermark: '2020-01-01T00:00:00.000Z' }, 1)
        .catch((e) => e);
      expect(stale).toBeInstanceOf(StateConflictError);
      expect(stale.retryable).toBe(false);
      await expect(store.saveStream(first, 0)).rejects.toBeInstanceOf(StateConflictError);
      await expect(store.saveStream(streamState('main:resource'), 3)).rejects.toBeInstanceOf(
        StateConflictError,
      );
      expect((await store.getStream('main:customer'))?.watermark).toBe('2026-01-01T00:05:00.000Z');
      expect(await store.getStream('main:resource')).toBeUndefined();
    });

    it('rejects an invalid stream state naming the field', async () => {
      const store = await createStore();
      const invalid = streamState('main:customer', { nextDueAt: 1.5 });

      const error = await store.saveStream(invalid, 0).catch((e) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.path).toBe('nextDueAt');
      expect(await store.getStream('main:customer')).toBeUndefined();
    });

    it('lists every stream ordered by id, and nothing when empty', async () => {
      const store = await createStore();
      expect(await store.listStreams()).toEqual([]);
      for (const id of ['main:resource', 'main:customer', 'other:customer']) {
        await store.saveStream(streamState(id), 0);
      }

      const listed = await store.listStreams();
      expect(listed.map((s) => s.streamId)).toEqual([
        'main:customer',
        'main:resource',
        'other:customer',
      ]);
      expect(listed[0]).toEqual(streamState('main:customer', { version: 1 }));
    });

    it('lists one connection’s streams, not those of a connection whose id starts the same', async () => {
      const store = await createStore();
      for (const id of ['main-2:customer', 'main:resource', 'ma:customer', 'main:customer']) {
        await store.saveStream(streamState(id), 0);
      }
      const listed = await store.listStreams({ connectionId: 'main' });
      expect(listed.map((s) => s.streamId)).toEqual(['main:customer', 'main:resource']);
      expect(await store.listStreams({ connectionId: 'none' })).toEqual([]);
    });

    it('lists at most a limit of streams, the first by id, with or without a connection', async () => {
      const store = await createStore();
      for (const id of ['main:resource', 'main:customer', 'other:customer', 'main:product']) {
        await store.saveStream(streamState(id), 0);
      }
      const ids = async (...args: Parameters<StateStore['listStreams']>) =>
        (await store.listStreams(...args)).map((s) => s.streamId);
      expect(await ids(undefined, { limit: 2 })).toEqual(['main:customer', 'main:product']);
      expect(await ids({ connectionId: 'main' }, { limit: 1 })).toEqual(['main:customer']);
      expect(await ids(undefined, { limit: 10 })).toHaveLength(4);
      expect(await ids(undefined, { limit: 0 })).toEqual([]);
    });

    it("lists the streams after an id (a page's last), whether or not a stream has it", async () => {
      const store = await createStore();
      for (const id of ['main:resource', 'main:customer', 'other:customer', 'main:product']) {
        await store.saveStream(streamState(id), 0);
      }
      const ids = async (...args: Parameters<StateStore['listStreams']>) =>
        (await store.listStreams(...args)).map((s) => s.streamId);
      expect(await ids(undefined, { after: 'main:customer' })).toEqual([
        'main:product',
        'main:resource',
        'other:customer',
      ]);
      expect(await ids(undefined, { after: 'main:customer', limit: 2 })).toEqual([
        'main:product',
        'main:resource',
      ]);
      expect(await ids(undefined, { after: 'main:q' })).toEqual([
        'main:resource',
        'other:customer',
      ]);
      expect(await ids({ connectionId: 'main' }, { after: 'main:product' })).toEqual([
        'main:resource',
      ]);
      expect(await ids(undefined, { after: 'other:customer' })).toEqual([]);
    });

    it('deletes a stream with its snapshots and lease, leaving other streams alone', async () => {
      const store = await createStore();
      await store.saveStream(streamState('main:customer'), 0);
      await store.saveStream(streamState('main:resource'), 0);
      await store.putSnapshots(
        'main:customer',
        ids(60).map((id) => snapshot(id)),
      );
      await store.putSnapshots('main:resource', [snapshot('kept')]);
      await store.acquireLease('main:customer', 'poller-1', 60_000, 1_000);

      await store.deleteStream('main:customer');
      await store.deleteStream('never:existed');

      expect(await store.getStream('main:customer')).toBeUndefined();
      expect(await collect(store.scanSnapshots('main:customer'))).toEqual([]);
      expect(await store.acquireLease('main:customer', 'poller-2', 60_000, 2_000)).not.toBeNull();
      expect((await store.listStreams()).map((s) => s.streamId)).toEqual(['main:resource']);
      expect((await store.getSnapshots('main:resource', ['kept'])).size).toBe(1);
      expect(await store.saveStream(streamState('main:customer'), 0)).toMatchObject({ version: 1 });
    });

    it('deletes a stream state alone, only at the version given', async () => {
      const store = await createStore();
      await store.saveStream(streamState('main:customer', { removedAt: 5, resetAt: 5 }), 0);
      await store.putSnapshots('main:customer', [snapshot('kept')]);

      expect(await store.deleteStreamState('main:customer', 2)).toBe(false);
      expect(await store.getStream('main:customer')).toMatchObject({ version: 1, removedAt: 5 });
      expect(await store.deleteStreamState('main:customer', 1)).toBe(true);
      expect(await store.deleteStreamState('main:customer', 1)).toBe(false);
      expect(await store.getStream('main:customer')).toBeUndefined();
      expect((await store.getSnapshots('main:customer', ['kept'])).size).toBe(1);
    });

    it('notes removed streams and lists them by id up to a limit, each once', async () => {
      const store = await createStore();
      expect(await store.listRemovedStreams(10)).toEqual([]);
      for (const [id, removedAt] of [
        ['b:customer', 1],
        ['a:resource', 2],
        ['a:customer', 3],
        ['b:customer', 4],
      ] as const)
        await store.markStreamRemoved(id, removedAt);

      expect(await store.listRemovedStreams(10)).toEqual([
        { streamId: 'a:customer', removedAt: 3 },
        { streamId: 'a:resource', removedAt: 2 },
        { streamId: 'b:customer', removedAt: 4 },
      ]);
      expect((await store.listRemovedStreams(2)).map((note) => note.streamId)).toEqual([
        'a:customer',
        'a:resource',
      ]);
      expect(await store.unmarkStreamRemoved({ streamId: 'a:resource', removedAt: 2 })).toBe(true);
      expect(await store.unmarkStreamRemoved({ streamId: 'never:noted', removedAt: 2 })).toBe(
        false,
      );
      expect((await store.listRemovedStreams(10)).map((note) => note.streamId)).toEqual([
        'a:customer',
        'b:customer',
      ]);
      // The notes are no stream states.
      expect(await store.listStreams()).toEqual([]);
    });

    it('drops a removed stream note only as it was listed, keeping the note of a later removal', async () => {
      const store = await createStore();
      await store.markStreamRemoved('a:customer', 10);
      const [listed] = await store.listRemovedStreams(10);
      // Removed again (added, polled and removed once more) before the purge drops its note.
      await store.markStreamRemoved('a:customer', 20);

      expect(await store.unmarkStreamRemoved(listed!)).toBe(false);
      expect(await store.listRemovedStreams(10)).toEqual([
        { streamId: 'a:customer', removedAt: 20 },
      ]);
      expect(await store.unmarkStreamRemoved({ streamId: 'a:customer', removedAt: 20 })).toBe(true);
      expect(await store.listRemovedStreams(10)).toEqual([]);
    });
  });

  describe(`${name}: leases`, () => {
    it('grants a free lease and refuses a second owner while it is valid', async () => {
      const store = await createStore();
      expect(await store.acquireLease('main:customer', 'a', 30_000, 1_000)).toEqual({
        streamId: 'main:customer',
        owner: 'a',
        expiresAt: 31_000,
      });

      expect(await store.acquireLease('main:customer', 'b', 30_000, 30_999)).toBeNull();
      expect(await store.acquireLease('main:resource', 'b', 30_000, 30_999)).not.toBeNull();
    });

    it('lets another owner take a lease once it expired', async () => {
      const store = await createStore();
      await store.acquireLease('main:customer', 'a', 30_000, 1_000);

      expect(await store.acquireLease('main:customer', 'b', 30_000, 31_000)).toEqual({
        streamId: 'main:customer',
        owner: 'b',
        expiresAt: 61_000,
      });
      expect(await store.acquireLease('main:customer', 'a', 30_000, 31_001)).toBeNull();
    });

    it('renews the lease of the same owner with a new expiry', async () => {
      const store = await createStore();
      await store.acquireLease('main:customer', 'a', 30_000, 1_000);

      expect(await store.acquireLease('main:customer', 'a', 30_000, 20_000)).toEqual({
        streamId: 'main:customer',
        owner: 'a',
        expiresAt: 50_000,
      });
      expect(await store.acquireLease('main:customer', 'b', 30_000, 40_000)).toBeNull();
    });

    it('releases only the owner’s lease', async () => {
      const store = await createStore();
      await store.releaseLease('main:customer', 'a');
      await store.acquireLease('main:customer', 'a', 30_000, 1_000);

      await store.releaseLease('main:customer', 'b');
      expect(await store.acquireLease('main:customer', 'b', 30_000, 2_000)).toBeNull();
      await store.releaseLease('main:customer', 'a');
      expect(await store.acquireLease('main:customer', 'b', 30_000, 2_000)).not.toBeNull();
    });
  });
}
