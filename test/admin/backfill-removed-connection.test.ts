import { describe, expect, it } from 'vitest';
import { backfillProgress } from '../../shared/admin/backfill.ts';
import type { BackfillJob, BackfillJobStore } from '../../shared/admin/backfill-jobs.ts';
import { endingOutcomes } from '../../shared/admin/backfill-part.ts';
import { streamState } from '../state/state-store.contract.ts';
import { SYNCED_UNTIL, savePass, useDynamoBridges } from './support/dynamo-bridge.ts';
import { HARNESS_START_MS } from './support/harness.ts';

/** The dynalite bridge with `hotel-1` in a table of its own; its harness closes after the test. */
const bridgeWithHotel = useDynamoBridges('removed');

describe('a backfill whose connection is removed without --keep-state', () => {
  it('keeps in its totals what the removed streams read and published before the removal', async () => {
    const { deps, state, call, harness } = await bridgeWithHotel();
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
    await harness.clock.advance(5_000);

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

/**
 * `store` whose first write (a whole job, or entries kept) waits until `before` has run: a
 * writer that read the job, and the states, before `before` wrote.
 */
function writingAfter(store: BackfillJobStore, before: () => Promise<unknown>): BackfillJobStore {
  let pending: (() => Promise<unknown>) | undefined = before;
  const first = async () => {
    const run = pending;
    pending = undefined;
    await run?.();
  };
  return {
    get: (id) => store.get(id),
    list: (options) => store.list(options),
    addWritten: (id, streamId, counts) => store.addWritten(id, streamId, counts),
    put: async (job) => {
      await first();
      return store.put(job);
    },
    keep: async (id, kept) => {
      await first();
      return store.keep(id, kept);
    },
  };
}

describe('a backfill reading that writes the job after a removal kept its outcomes', () => {
  it('leaves the outcomes the removal kept as they were', async () => {
    const { deps, state, call, harness } = await bridgeWithHotel();
    const started = await call('POST', '/backfill', { connections: ['hotel-1'], emit: false });
    const { id } = started.body as { id: string };
    await savePass(state, 'hotel-1:customer', { recordsRead: 75, eventsPublished: 3 });
    // The resources' pass completed: the reading keeps its outcome.
    await savePass(state, 'hotel-1:resource', {
      watermark: SYNCED_UNTIL,
      recordsRead: 9,
      eventsPublished: 0,
      doneAt: HARNESS_START_MS + 1_000,
    });
    await harness.clock.advance(5_000);

    // The reading has read the job and both states; the removal answers before it writes.
    const removal = () => call('DELETE', '/connections/hotel-1');
    const job = await deps.backfills.get(id);
    await backfillProgress(job!, { ...deps, backfills: writingAfter(deps.backfills, removal) });
    expect(await state.getStream('hotel-1:customer')).toBeUndefined();

    expect((await call('GET', `/backfill/${id}`)).body).toMatchObject({
      done: true,
      recordsRead: 84,
      eventsPublished: 3,
      streams: [
        { streamId: 'hotel-1:customer', endedBy: 'removed', recordsRead: 75, eventsPublished: 3 },
        { streamId: 'hotel-1:resource', endedBy: null, recordsRead: 9, eventsPublished: 0 },
      ],
    });
  });
});

describe('endingOutcomes', () => {
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
    expect(endingOutcomes(job, states, 'removed', NOW)).toEqual({
      'hotel-1:customer': { doneAt: NOW, recordsRead: 12, eventsPublished: 1, endedBy: 'removed' },
      'hotel-1:taxEnvironment': {
        doneAt: NOW,
        recordsRead: 7,
        eventsPublished: 7,
        endedBy: 'removed',
      },
    });
  });

  it('ends a part taken over as superseded, keeps a completed one as completed, skips no state', () => {
    const states = [
      streamState('hotel-1:customer', { initialSyncDone: true, backfill: pass('bf_1', 12) }),
      streamState('hotel-1:resource', {
        initialSyncDone: true,
        backfill: { ...pass('bf_1', 30), doneAt: HARNESS_START_MS + 1_000 },
      }),
      undefined,
    ];
    expect(endingOutcomes(job, states, 'superseded', NOW)).toEqual({
      'hotel-1:customer': {
        doneAt: NOW,
        recordsRead: 12,
        eventsPublished: 1,
        endedBy: 'superseded',
      },
      'hotel-1:resource': {
        doneAt: HARNESS_START_MS + 1_000,
        recordsRead: 30,
        eventsPublished: 1,
        endedBy: null,
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
      endingOutcomes({ ...job, outcomes: { 'hotel-1:customer': kept } }, states, 'removed', NOW),
    ).toEqual({});
  });
});
