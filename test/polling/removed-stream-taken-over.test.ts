import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import type { PollDeps, StreamDefinition } from '../../shared/polling/poll-context.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { purgeRemovedStreams, removeStream } from '../../shared/polling/removed-streams.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import type { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import type { StoredSnapshot } from '../../shared/state/state-store.ts';
import { createStoreOnNewTable } from '../state/dynamodb-harness.ts';
import { type CollectingPublisher, entityStream, POLL_TEST_START_MS } from './poll-harness.ts';

/**
 * A connection removed in the background (the AWS admin API) leaves its streams as tombstones
 * whose snapshots a purge deletes later. Added again with the same id meanwhile, its streams
 * take the tombstones over: they start as after a reset, never judging a record against a
 * snapshot of before, and the purge leaves them. On dynalite, as in AWS.
 */
describe('a stream removed in the background and its connection added again', () => {
  const clock = new ManualClock(POLL_TEST_START_MS);
  let publisher: CollectingPublisher;
  let dynamo: LocalDynamoDb;
  let store: DynamoDbStateStore;
  let sim: RunningSimulator;
  let client: ConnectorClient;
  let definition: StreamDefinition;
  let deps: PollDeps;

  beforeAll(async () => {
    dynamo = await startLocalDynamoDb();
    sim = await startSimulator({ seed: 31, size: 'small', clock, rateLimit: false });
  });
  beforeEach(async () => {
    ({ store } = await createStoreOnNewTable(dynamo.client));
    const stream = entityStream(sim, clock, store, 'accountNote');
    ({ client, definition, deps } = stream);
    publisher = stream.deps.publisher;
  });
  afterAll(async () => {
    await client.close();
    await sim.close();
    await dynamo?.close();
  });

  async function pollToTheEnd(): Promise<number> {
    for (let polls = 1; polls <= 20; polls++) {
      await clock.advance(2_000);
      const outcome = await pollStream(definition, deps, 'poller');
      if (outcome.kind === 'polled' && outcome.caughtUp) return polls;
    }
    throw new Error('the stream did not catch up');
  }

  /** A synced stream with snapshots of notes long gone beside its own, then removed. */
  async function removedStream(): Promise<number> {
    await pollToTheEnd();
    const gone: StoredSnapshot[] = Array.from({ length: 1_500 }, (_, i) => ({
      entityId: `gone-${String(i).padStart(6, '0')}`,
      hash: 'h',
      record: { Id: `gone-${i}` },
      updatedAt: clock.now(),
    }));
    await store.putSnapshots(definition.streamId, gone);
    await clock.advance(60_000);
    const removedAt = clock.now();
    const stored = await store.getStream(definition.streamId);
    await removeStream(store, stored!, removedAt, 'background');
    return removedAt;
  }

  async function snapshotsBefore(at: number): Promise<number> {
    let count = 0;
    for await (const page of store.scanSnapshots(definition.streamId))
      count += page.filter((s) => s.updatedAt < at).length;
    return count;
  }

  it('is taken over by its first poll: the purge leaves it, and its first sync meets no old snapshot', async () => {
    const removedAt = await removedStream();
    const events = publisher.events.length;

    await clock.advance(2_000);
    await pollStream(definition, deps, 'poller');
    expect(await store.getStream(definition.streamId)).toMatchObject({ removedAt: null });
    // The purge finds a stream no longer removed: it drops the note, and the state stays.
    await purgeRemovedStreams(store, { now: () => clock.now() });
    expect(await store.listRemovedStreams(10)).toEqual([]);

    await pollToTheEnd();
    expect(await snapshotsBefore(removedAt)).toBe(0);
    expect(await store.getStream(definition.streamId)).toMatchObject({
      initialSyncDone: true,
      resetAt: null,
      removedAt: null,
    });
    // A baseline first sync (INITIAL_SYNC unset) stores silently: nothing judged against the old.
    expect(publisher.events.length).toBe(events);
    let stored = 0;
    for await (const page of store.scanSnapshots(definition.streamId)) stored += page.length;
    expect(stored).toBeGreaterThan(0);
  }, 60_000);

  it('starts with no state when the purge deleted the tombstone first: the poll that read it writes nothing', async () => {
    const removedAt = await removedStream();
    const tombstone = await store.getStream(definition.streamId);
    expect(tombstone).toMatchObject({ removedAt, resetAt: removedAt, watermark: null });

    for (let step = 0; step < 10; step++)
      if ((await purgeRemovedStreams(store, { now: () => clock.now() })).done) break;
    expect(await store.getStream(definition.streamId)).toBeUndefined();
    expect(await snapshotsBefore(removedAt)).toBe(0);

    // A poll job that read the tombstone before the purge deleted it.
    const outcome = await pollStream(definition, deps, 'poller', { stored: tombstone });
    expect(outcome).toMatchObject({ kind: 'skipped', reason: 'changed' });
    expect(await store.getStream(definition.streamId)).toBeUndefined();
    let stored = 0;
    for await (const page of store.scanSnapshots(definition.streamId)) stored += page.length;
    expect(stored).toBe(0);

    await pollToTheEnd();
    expect(await store.getStream(definition.streamId)).toMatchObject({ initialSyncDone: true });
  }, 60_000);
});
