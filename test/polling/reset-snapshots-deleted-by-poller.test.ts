import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveResetState } from '../../shared/admin/backfill.ts';
import { ManualClock } from '../../shared/clock.ts';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import type { PollDeps, StreamDefinition } from '../../shared/polling/poll-context.ts';
import {
  initialStreamState,
  pollStream,
  RESET_SNAPSHOTS_DELETED_PER_POLL,
} from '../../shared/polling/poll-stream.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import type { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import type { StoredSnapshot } from '../../shared/state/state-store.ts';
import { createStoreOnNewTable } from '../state/dynamodb-harness.ts';
import { type CollectingPublisher, entityStream, POLL_TEST_START_MS } from './poll-harness.ts';

/**
 * A reset no longer deletes the stream's snapshots in its request (too slow for API Gateway's
 * 29 s on a large stream): it marks the state `resetAt`, and the poller deletes the snapshots of
 * before, a bounded number per poll, before the first sync begins. On dynalite, as in AWS.
 */
describe('an emitting first sync after a reset whose snapshots the poller deletes', () => {
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
    ({ store } = await createStoreOnNewTable(dynamo.client));
    sim = await startSimulator({ seed: 31, size: 'small', clock, rateLimit: false });
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

  it('publishes created for every entity once the poller deleted what was stored before', async () => {
    // The old first sync, silent, stores a snapshot of every note; more snapshots of before
    // (notes long gone) than one poll deletes.
    await pollToTheEnd();
    expect(publisher.events).toHaveLength(0);
    const gone: StoredSnapshot[] = Array.from(
      { length: RESET_SNAPSHOTS_DELETED_PER_POLL + 500 },
      (_, i) => ({
        entityId: `gone-${String(i).padStart(6, '0')}`,
        hash: 'h',
        record: { Id: `gone-${i}` },
        updatedAt: clock.now(),
      }),
    );
    await store.putSnapshots(definition.streamId, gone);
    await clock.advance(60_000);
    const resetAt = clock.now();
    // A reset in emit mode (what POST /streams/{id}/reset writes, with INITIAL_SYNC=emit).
    await saveResetState(
      store,
      {
        ...initialStreamState(definition, resetAt),
        initialSync: 'emit',
        backfill: { kind: 'first-sync', jobId: 'bf_1' },
      },
      resetAt,
    );
    expect((await store.getSnapshots(definition.streamId, ['gone-000000'])).size).toBe(1);

    expect(await pollToTheEnd()).toBeGreaterThan(1);
    const active = [...sim.controls.model.accountNotes.all()].filter(
      (entry) => entry.record.IsActive,
    );
    expect(active.length).toBeGreaterThan(0);
    const created = new Set(
      publisher.events.filter((e) => e.type === 'accountNote.created').map((e) => e.subject),
    );
    expect(created.size).toBe(active.length);
    expect(publisher.events.filter((e) => e.type !== 'accountNote.created')).toEqual([]);
    expect(await store.getStream(definition.streamId)).toMatchObject({
      initialSyncDone: true,
      resetAt: null,
    });
    const left: StoredSnapshot[] = [];
    for await (const page of store.scanSnapshots(definition.streamId)) left.push(...page);
    expect(left.filter((s) => s.updatedAt < resetAt)).toEqual([]);
    expect(left.length).toBeGreaterThan(0);
  }, 60_000);
});
