import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AdminDeps } from '../../shared/admin/admin-deps.ts';
import { backfillProgress } from '../../shared/admin/backfill.ts';
import { type BackfillJob, DynamoDbBackfillJobStore } from '../../shared/admin/backfill-jobs.ts';
import { removalOutcomes } from '../../shared/admin/backfill-removal.ts';
import { handleAdminRequest } from '../../shared/admin/router.ts';
import { enabledConnectionStreams } from '../../shared/connections/connection-streams.ts';
import { DynamoDbConnectionStore } from '../../shared/connections/dynamodb-connection-store.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import type { BackfillPass, StateStore } from '../../shared/state/state-store.ts';
import { streamState } from '../state/state-store.contract.ts';
import { type AdminHarness, createAdminHarness, HARNESS_START_MS } from './support/harness.ts';

let dynamo: LocalDynamoDb;
let tables = 0;
let harness: AdminHarness | undefined;
beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});
afterAll(async () => {
  await dynamo?.close();
});

/** Where the hotel's live polls had read when the backfill starts: its passes end here. */
const SYNCED_UNTIL = new Date(HARNESS_START_MS - 60_000).toISOString();

/**
 * The admin API with its state, backfill jobs and connections in one dynalite table (as
 * `change-bridge start` keeps them), and a stored connection `hotel-1` (customers and
 * resources) whose two streams completed their first sync.
 */
async function bridgeWithHotel() {
  harness = createAdminHarness();
  tables += 1;
  const tableName = `removed-${process.pid}-${tables}`;
  await createStateTable(dynamo.client, tableName);
  const { clock, settings } = harness;
  const state = new DynamoDbStateStore({ client: dynamo.client, tableName, clock });
  const connections = new DynamoDbConnectionStore({ client: dynamo.client, tableName });
  const mainStreams = harness.streams;
  const deps: AdminDeps = {
    ...harness.deps,
    state,
    backfills: new DynamoDbBackfillJobStore({ client: dynamo.client, tableName, clock }),
    streams: async () => [
      ...mainStreams,
      ...(await enabledConnectionStreams(connections, settings)),
    ],
    connections: { ...harness.deps.connections!, store: connections, state },
  };
  const call = (method: string, path: string, body?: unknown) =>
    handleAdminRequest({ method, path, query: {}, body }, deps);
  const added = await call('POST', '/connections', {
    id: 'hotel-1',
    accessToken: 'hotel-access-token-4b7d',
    entities: 'customer,resource',
  });
  expect(added.status).toBe(201);
  for (const streamId of ['hotel-1:customer', 'hotel-1:resource']) {
    await state.saveStream(
      streamState(streamId, { initialSyncDone: true, watermark: SYNCED_UNTIL }),
      0,
    );
  }
  return { deps, state, call };
}

/** Saves a stream's backfill pass as its poller does after a page: counters with the cursor. */
async function savePass(state: StateStore, streamId: string, change: Partial<BackfillPass>) {
  const stored = await state.getStream(streamId);
  if (stored?.backfill?.kind !== 'pass') throw new Error(`${streamId} has no backfill pass`);
  await state.saveStream(
    { ...stored, backfill: { ...stored.backfill, ...change } },
    stored.version,
  );
}

describe('a backfill whose connection is removed without --keep-state', () => {
  it('keeps in its totals what the removed streams read and published before the removal', async () => {
    const { deps, state, call } = await bridgeWithHotel();
    const started = await call('POST', '/backfill', { connections: ['hotel-1'], emit: true });
    expect(started.status).toBe(202);
    const { id } = started.body as { id: string };
    const halfway = new Date((deps.windows.historyStartMs + Date.parse(SYNCED_UNTIL)) / 2);
    await savePass(state, 'hotel-1:customer', {
      watermark: halfway.toISOString(),
      recordsRead: 120,
      eventsPublished: 118,
    });
    // The resources' pass completed, but no reading of the job has seen it yet.
    await savePass(state, 'hotel-1:resource', {
      watermark: SYNCED_UNTIL,
      recordsRead: 40,
      eventsPublished: 40,
      doneAt: HARNESS_START_MS + 1_000,
    });
    await harness!.clock.advance(5_000);

    const removed = await call('DELETE', '/connections/hotel-1');
    expect(removed.body).toMatchObject({ removed: true, streamsDeleted: 2 });
    expect(await state.getStream('hotel-1:customer')).toBeUndefined();

    const progress = await call('GET', `/backfill/${id}`);
    expect(progress.body).toMatchObject({
      done: true,
      recordsRead: 160,
      eventsPublished: 158,
      streams: [
        {
          streamId: 'hotel-1:customer',
          endedBy: 'removed',
          recordsRead: 120,
          eventsPublished: 118,
        },
        { streamId: 'hotel-1:resource', endedBy: null, recordsRead: 40, eventsPublished: 40 },
      ],
      finishedAt: new Date(HARNESS_START_MS + 5_000).toISOString(),
    });
  });

  it('keeps them too for a reading that fetched the job before the removal and the states after it', async () => {
    const { deps, state, call } = await bridgeWithHotel();
    const started = await call('POST', '/backfill', { connections: ['hotel-1'], emit: false });
    const { id } = started.body as { id: string };
    await savePass(state, 'hotel-1:customer', { recordsRead: 75, eventsPublished: 3 });
    await savePass(state, 'hotel-1:resource', { recordsRead: 9, eventsPublished: 0 });
    // As `GET /backfill/{id}` does: the job first, then (here after the removal) the states.
    const readBefore = await deps.backfills.get(id);

    await call('DELETE', '/connections/hotel-1');
    const view = await backfillProgress(readBefore!, deps);

    expect(view).toMatchObject({ done: true, recordsRead: 84, eventsPublished: 3 });
    expect((await deps.backfills.get(id))?.outcomes).toMatchObject({
      'hotel-1:customer': { endedBy: 'removed', recordsRead: 75, eventsPublished: 3 },
      'hotel-1:resource': { endedBy: 'removed', recordsRead: 9, eventsPublished: 0 },
    });
  });
});

describe('removalOutcomes', () => {
  const job: BackfillJob = {
    id: 'bf_1',
    startedAt: HARNESS_START_MS,
    emit: false,
    entities: ['customer', 'resource', 'taxEnvironment'],
    streamIds: ['hotel-1:customer', 'hotel-1:resource', 'hotel-1:taxEnvironment'],
    historyStartMs: Date.UTC(2021, 0, 1),
    doneAtMs: HARNESS_START_MS - 5_000,
  };
  const pass = (jobId: string, recordsRead: number) =>
    ({
      kind: 'pass',
      jobId,
      emit: false,
      startedAt: HARNESS_START_MS,
      endUtc: SYNCED_UNTIL,
      watermark: null,
      window: null,
      recordsRead,
      eventsPublished: 1,
      doneAt: null,
    }) as const;
  const NOW = HARNESS_START_MS + 9_000;

  it('ends the parts of the job as removed with their figures: a pass, and a first sync', () => {
    const states = [
      streamState('hotel-1:customer', { initialSyncDone: true, backfill: pass('bf_1', 12) }),
      streamState('hotel-1:taxEnvironment', {
        recordsRead: 7,
        eventsPublished: 7,
        backfill: { kind: 'first-sync', jobId: 'bf_1' },
      }),
    ];
    expect(removalOutcomes(job, states, NOW)).toEqual({
      'hotel-1:customer': { doneAt: NOW, recordsRead: 12, eventsPublished: 1, endedBy: 'removed' },
      'hotel-1:taxEnvironment': {
        doneAt: NOW,
        recordsRead: 7,
        eventsPublished: 7,
        endedBy: 'removed',
      },
    });
  });

  it('leaves out a part of another job and one whose outcome the job keeps already', () => {
    const kept = { doneAt: 1, recordsRead: 3, eventsPublished: 3, endedBy: null };
    const states = [
      streamState('hotel-1:customer', { initialSyncDone: true, backfill: pass('bf_1', 12) }),
      streamState('hotel-1:resource', { initialSyncDone: true, backfill: pass('bf_0', 5) }),
    ];
    expect(
      removalOutcomes({ ...job, outcomes: { 'hotel-1:customer': kept } }, states, NOW),
    ).toEqual({});
  });
});
