import { describe, expect, it } from 'vitest';
import { backfillProgress, deliveryRange, readStream } from '../../shared/admin/backfill.ts';
import { type BackfillJob, MemoryBackfillJobStore } from '../../shared/admin/backfill-jobs.ts';
import { ManualClock } from '../../shared/clock.ts';
import type { StreamDefinition } from '../../shared/polling/poll-context.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import type { BackfillPass, StreamState } from '../../shared/state/state-store.ts';
import {
  type DeliveryCounts,
  MemoryDeliveryCounter,
  NO_DELIVERY_COUNTS,
} from '../../shared/webhooks/delivery-counter.ts';
import { streamState } from '../state/state-store.contract.ts';

const HISTORY = Date.UTC(2021, 0, 1);
const START = Date.UTC(2026, 0, 1);
const NOW = START + 60_000;
const job: BackfillJob = {
  id: 'bf_1',
  startedAt: START,
  emit: false,
  entities: ['customer'],
  streamIds: ['main:customer'],
  historyStartMs: HISTORY,
  doneAtMs: START - 5000,
};
const FIRST_SYNC = { backfill: { kind: 'first-sync', jobId: 'bf_1' } } as const;
/** A stream reset by job bf_1, its first sync at `ms`. */
const at = (ms: number) =>
  streamState('main:customer', { watermark: new Date(ms).toISOString(), ...FIRST_SYNC });
/** A stream on a pass of bf_1 ending at the job start. */
const onPass = (pass: Partial<BackfillPass>, state: Partial<StreamState> = {}) =>
  streamState('main:customer', {
    watermark: new Date(START + 30_000).toISOString(),
    initialSyncDone: true,
    backfill: {
      kind: 'pass',
      jobId: 'bf_1',
      emit: true,
      startedAt: START,
      endUtc: new Date(START).toISOString(),
      watermark: null,
      window: null,
      recordsRead: 0,
      eventsPublished: 0,
      doneAt: null,
      ...pass,
    },
    ...state,
  });
const read = (
  state: StreamState | undefined,
  counts: Partial<DeliveryCounts> = {},
  configured = true,
  of = job,
) =>
  readStream(
    of,
    'main:customer',
    'customer',
    state,
    { ...NO_DELIVERY_COUNTS, ...counts },
    configured,
    NOW,
  );

describe('backfill progress of a stream reset for a first sync', () => {
  it('is 0 and not done before the first window', () => {
    expect(read(streamState('main:customer', FIRST_SYNC)).progress).toMatchObject({
      fraction: 0,
      done: false,
      watermark: null,
      endedBy: null,
    });
  });

  it('is (watermark − history start) / (job start − history start) on the way', () => {
    const quarter = HISTORY + (START - HISTORY) / 4;
    expect(read(at(quarter)).progress.fraction).toBeCloseTo(0.25, 10);
    expect(read(at(HISTORY)).progress.fraction).toBe(0);
  });

  it('is done at 1 once the watermark reaches the job start minus the settle lag', () => {
    expect(read(at(START - 5001)).progress.done).toBe(false);
    expect(read(at(START - 5000)).progress).toMatchObject({ fraction: 1, done: true });
  });

  it('clamps a watermark before the history start to 0 and reports parking and errors', () => {
    const parked = { ...at(HISTORY - 1000), parked: true, lastError: 'authorization failed' };
    expect(read(parked).progress).toMatchObject({
      fraction: 0,
      parked: true,
      lastError: 'authorization failed',
    });
  });

  it("reports the first sync's figures, not what the stream read since", () => {
    const finished = streamState('main:customer', {
      ...FIRST_SYNC,
      watermark: new Date(START + 3_600_000).toISOString(),
      initialSyncDone: true,
      firstSync: { doneAt: START + 42_000, recordsRead: 300, eventsPublished: 294 },
      // An hour of live polling after the first sync.
      recordsRead: 5_300,
      eventsPublished: 5_294,
    });
    expect(read(finished)).toMatchObject({
      progress: { done: true, recordsRead: 300, eventsPublished: 294 },
      outcome: { doneAt: START + 42_000, recordsRead: 300, eventsPublished: 294, endedBy: null },
    });
  });
});

describe('backfill progress of a stream on a pass beside its live polls', () => {
  it("is the pass's watermark over [history start, its end), with the pass's own counters", () => {
    const quarter = new Date(HISTORY + (START - HISTORY) / 4).toISOString();
    const reading = read(onPass({ watermark: quarter, recordsRead: 1000, eventsPublished: 990 }));
    expect(reading.progress.fraction).toBeCloseTo(0.25, 10);
    expect(reading.progress).toMatchObject({
      done: false,
      recordsRead: 1000,
      eventsPublished: 990,
    });
    expect(reading.outcome).toBeUndefined();
  });

  it('is done once the pass is, with its figures kept as the outcome', () => {
    const done = onPass({ doneAt: START + 9_000, recordsRead: 5000, eventsPublished: 5000 });
    expect(read(done)).toMatchObject({
      progress: { fraction: 1, done: true, endedBy: null, recordsRead: 5000 },
      outcome: { doneAt: START + 9_000, recordsRead: 5000, eventsPublished: 5000, endedBy: null },
    });
  });
});

describe('a stream whose part ended without completing', () => {
  it('was superseded when its backfill state names another job, or it has none', () => {
    const later = onPass({ jobId: 'bf_2', recordsRead: 7 });
    expect(read(later)).toMatchObject({
      progress: { done: true, fraction: 1, endedBy: 'superseded', recordsRead: 0 },
      outcome: { doneAt: NOW, endedBy: 'superseded' },
    });
    expect(read(undefined).progress).toMatchObject({ done: true, endedBy: 'superseded' });
  });

  it('was removed when the stream is no longer configured (connection removed or disabled)', () => {
    expect(read(onPass({ recordsRead: 12 }), {}, false)).toMatchObject({
      progress: { done: true, endedBy: 'removed', recordsRead: 12 },
      outcome: { endedBy: 'removed', recordsRead: 12 },
    });
  });

  it('keeps what the job kept, whatever the stream does later', () => {
    const kept = {
      ...job,
      outcomes: {
        'main:customer': { doneAt: START + 1, recordsRead: 3, eventsPublished: 2, endedBy: null },
      },
    };
    const reading = read(onPass({ jobId: 'bf_2', recordsRead: 99 }), {}, true, kept);
    expect(reading.progress).toMatchObject({ done: true, endedBy: null, recordsRead: 3 });
    expect(reading.outcome).toBeUndefined();
  });
});

describe('backfill counts of a stream', () => {
  it('are the dispatcher’s counts of its events: delivered, dead-lettered, and left', () => {
    expect(
      read(onPass({}), { events: 9, created: 18, delivered: 12, dead: 2 }).progress,
    ).toMatchObject({ webhooksDelivered: 12, webhooksDeadLettered: 2, webhooksLeft: 4 });
  });

  it('count the events a pass and the live polls published since the start that are not fanned out yet', () => {
    // The stream's live polls had published 40 events before the pass, 3 since; the pass 10.
    const state = onPass({ eventsPublished: 10, liveEventsAtStart: 40 }, { eventsPublished: 43 });
    expect(read(state, { events: 11 }).progress.eventsQueued).toBe(2);
    expect(read(state, { events: 13 }).progress.eventsQueued).toBe(0);
  });

  it('count every event of a first sync the job reset the stream for', () => {
    expect(
      read({ ...at(HISTORY), eventsPublished: 25 }, { events: 20 }).progress.eventsQueued,
    ).toBe(5);
  });

  it('are read from the job start, and up to a takeover when a later backfill or reset took over', () => {
    expect(deliveryRange(job, 'main:customer')).toEqual({
      streamId: 'main:customer',
      fromMs: START,
    });
    const taken = { ...job, deliveredUntil: { 'main:customer': START + 9_000 } };
    expect(deliveryRange(taken, 'main:customer')).toEqual({
      streamId: 'main:customer',
      fromMs: START,
      untilMs: START + 9_000,
    });
    // A delivery counter's value kept by an earlier version is no instant: no end.
    const legacy = { ...job, deliveredUntil: { 'main:customer': 1_700 } };
    expect(deliveryRange(legacy, 'main:customer')).toEqual({
      streamId: 'main:customer',
      fromMs: START,
    });
  });
});

describe('backfillProgress', () => {
  const customer = { streamId: 'main:customer' } as StreamDefinition;
  const deps = async (state: StreamState, streams = [customer]) => {
    const store = new MemoryStateStore();
    await store.saveStream(state, 0);
    const backfills = new MemoryBackfillJobStore();
    await backfills.put(job);
    return {
      state: store,
      deliveryCounter: new MemoryDeliveryCounter(),
      clock: new ManualClock(START + 3_600_000),
      streams: async () => streams,
      backfills,
    };
  };

  it('stops its elapsed time where the last part ended, and keeps the outcome on the job', async () => {
    const d = await deps(
      onPass({ doneAt: START + 42_000, recordsRead: 300, eventsPublished: 294 }),
    );
    const view = await backfillProgress(job, d);
    expect(view).toMatchObject({
      done: true,
      recordsRead: 300,
      eventsPublished: 294,
      elapsedSeconds: 42,
      finishedAt: new Date(START + 42_000).toISOString(),
      etaSeconds: 0,
    });
    expect((await d.backfills.get(job.id))?.outcomes?.['main:customer']).toEqual({
      doneAt: START + 42_000,
      recordsRead: 300,
      eventsPublished: 294,
      endedBy: null,
    });
  });

  it('runs on, with no end and nothing kept, while a stream is still reading', async () => {
    const d = await deps(onPass({ watermark: new Date(HISTORY + 1).toISOString() }));
    d.clock = new ManualClock(START + 30_000);
    const view = await backfillProgress(job, d);
    expect(view).toMatchObject({ done: false, elapsedSeconds: 30, finishedAt: null });
    expect((await d.backfills.get(job.id))?.outcomes).toBeUndefined();
  });

  it('estimates the time left by its slowest stream, not by the mean of the fractions', async () => {
    // Streams read side by side: a small one done at once says nothing of the big one left.
    const two = { ...job, streamIds: ['main:customer', 'main:resource'] };
    const tenth = new Date(HISTORY + (START - HISTORY) / 10).toISOString();
    const resource = { ...onPass({ doneAt: START + 1_000 }), streamId: 'main:resource' };
    // A tenth of the 100,000 customers its first sync read.
    const firstSync = { doneAt: HISTORY, recordsRead: 100_000, eventsPublished: 0 };
    const d = await deps(onPass({ watermark: tenth, recordsRead: 10_000 }, { firstSync }), [
      customer,
      { streamId: 'main:resource' } as StreamDefinition,
    ]);
    await d.state.saveStream({ ...resource, entityType: 'resource', connectionId: 'main' }, 0);
    await d.backfills.put(two);
    d.clock = new ManualClock(START + 10_000);
    const view = await backfillProgress(two, d);
    expect(view.fraction).toBeCloseTo(0.55, 10);
    expect(view.streams[0]).toMatchObject({ fraction: 0.1, recordsExpected: 100_000 });
    // The customers read a tenth in 10 s: 90 s more at that pace (the mean 55% said 9 s).
    expect(view.etaSeconds).toBe(90);
  });

  it('estimates no time left while a running stream has nothing to tell, nor from a parked one', async () => {
    const two = { ...job, streamIds: ['main:customer', 'main:resource'] };
    const resource = { ...onPass({ doneAt: START + 1_000 }), streamId: 'main:resource' };
    const d = await deps(onPass({}), [customer, { streamId: 'main:resource' } as StreamDefinition]);
    await d.state.saveStream({ ...resource, entityType: 'resource', connectionId: 'main' }, 0);
    await d.backfills.put(two);
    d.clock = new ManualClock(START + 10_000);
    // Half of the range is read (the resource stream's), but how many customers are to come
    // nothing tells: the pass's state holds no first sync's count.
    expect(await backfillProgress(two, d)).toMatchObject({
      fraction: 0,
      rangeFraction: 0.5,
      readFraction: null,
      etaSeconds: null,
    });
    const half = new Date(HISTORY + (START - HISTORY) / 2).toISOString();
    const parked = onPass({ watermark: half }, { parked: true, version: 1 });
    await d.state.saveStream(parked, 1);
    expect(await backfillProgress(two, d)).toMatchObject({ etaSeconds: null });
  });

  it('ends a job whose only stream left (its connection removed), rather than waiting for ever', async () => {
    const d = await deps(onPass({}), []);
    expect(await backfillProgress(job, d)).toMatchObject({
      done: true,
      streams: [{ endedBy: 'removed' }],
    });
  });
});
