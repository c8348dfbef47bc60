import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { purgeRemovedStreams, removeStream } from '../../shared/polling/removed-streams.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import type { StateStore } from '../../shared/state/state-store.ts';
import { createStoreOnNewTable } from '../state/dynamodb-harness.ts';
import { streamState } from '../state/state-store.contract.ts';

const START = Date.UTC(2026, 2, 1);
const STREAM = { streamId: 'hotel-1:customer', connectionId: 'hotel-1', entityType: 'customer' };

/** The connection added again and its stream polled: the poll saves over what it finds. */
async function takenOverAndPolled(store: StateStore): Promise<void> {
  const found = await store.getStream(STREAM.streamId);
  await store.saveStream(
    streamState(STREAM.streamId, { initialSyncDone: true }),
    found?.version ?? 0,
  );
}

/**
 * `store`, with `meanwhile` run once just before its first note delete: what another request
 * does between a purge step's reading of a stream and its dropping of the stream's note.
 */
function withWorkBeforeNoteDelete(store: StateStore, meanwhile: () => Promise<void>): StateStore {
  let ran = false;
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'unmarkStreamRemoved' || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (!ran) {
          ran = true;
          await meanwhile();
        }
        return value.apply(target, args);
      };
    },
  });
}

const stores: [string, () => Promise<StateStore>][] = [
  ['memory', async () => new MemoryStateStore()],
  ['dynalite', async () => (await createStoreOnNewTable(dynamo.client)).store],
];
let dynamo: LocalDynamoDb;
beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
});
afterAll(async () => {
  await dynamo?.close();
});

describe.each(stores)(
  '%s: a stream removed again while a purge step drops its note',
  (_, create) => {
    /** Removes, adds again, polls and removes the stream again at START + 5 s. */
    const removedAgain = (store: StateStore) => async () => {
      await takenOverAndPolled(store);
      await removeStream(store, STREAM, START + 5_000, 'background');
    };

    it('keeps the later removal noted when the step had purged the earlier tombstone', async () => {
      const store = await create();
      await removeStream(store, STREAM, START, 'background');

      await purgeRemovedStreams(withWorkBeforeNoteDelete(store, removedAgain(store)), {
        now: () => START,
      });

      expect(await store.getStream(STREAM.streamId)).toMatchObject({ removedAt: START + 5_000 });
      expect(await store.listRemovedStreams(10)).toEqual([
        { streamId: STREAM.streamId, removedAt: START + 5_000 },
      ]);
      const next = await purgeRemovedStreams(store, { now: () => START });
      expect(next).toMatchObject({ streamsPurged: 1, done: true });
      expect(await store.getStream(STREAM.streamId)).toBeUndefined();
      expect(await store.listRemovedStreams(10)).toEqual([]);
    });

    it('keeps the later removal noted when the step had found the stream taken over', async () => {
      const store = await create();
      await removeStream(store, STREAM, START, 'background');
      await takenOverAndPolled(store);

      const step = await purgeRemovedStreams(
        withWorkBeforeNoteDelete(store, async () => {
          await removeStream(store, STREAM, START + 5_000, 'background');
        }),
        { now: () => START },
      );

      expect(step.streamsPurged).toBe(0);
      expect(await store.listRemovedStreams(10)).toEqual([
        { streamId: STREAM.streamId, removedAt: START + 5_000 },
      ]);
      await purgeRemovedStreams(store, { now: () => START });
      expect(await store.getStream(STREAM.streamId)).toBeUndefined();
      expect(await store.listRemovedStreams(10)).toEqual([]);
    });
  },
);
