import { describe, expect, it } from 'vitest';
import {
  backfillProgress,
  estimateSecondsLeft,
  streamProgress,
} from '../../shared/admin/backfill.ts';
import type { BackfillJob } from '../../shared/admin/backfill-jobs.ts';
import { ManualClock } from '../../shared/clock.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { MemoryDeliveryCounter } from '../../shared/webhooks/delivery-counter.ts';
import { streamState } from '../state/state-store.contract.ts';

const HISTORY = Date.UTC(2021, 0, 1);
const START = Date.UTC(2026, 0, 1);
const job: BackfillJob = {
  id: 'bf_1',
  startedAt: START,
  emit: false,
  entities: ['customer'],
  streamIds: ['main:customer'],
  historyStartMs: HISTORY,
  doneAtMs: START - 5000,
};
const at = (ms: number) => streamState('main:customer', { watermark: new Date(ms).toISOString() });

describe('backfill progress of a stream', () => {
  it('is 0 and not done before the first window (no state or no watermark)', () => {
    expect(streamProgress(job, 'main:customer', 'customer', undefined)).toMatchObject({
      fraction: 0,
      done: false,
      watermark: null,
    });
    expect(
      streamProgress(job, 'main:customer', 'customer', streamState('main:customer')),
    ).toMatchObject({
      fraction: 0,
      done: false,
    });
  });

  it('is (watermark − history start) / (job start − history start) on the way', () => {
    const quarter = HISTORY + (START - HISTORY) / 4;
    expect(streamProgress(job, 'main:customer', 'customer', at(quarter)).fraction).toBeCloseTo(
      0.25,
      10,
    );
    expect(streamProgress(job, 'main:customer', 'customer', at(HISTORY)).fraction).toBe(0);
  });

  it('is done at 1 once the watermark reaches the job start minus the settle lag', () => {
    expect(streamProgress(job, 'main:customer', 'customer', at(START - 5001)).done).toBe(false);
    expect(streamProgress(job, 'main:customer', 'customer', at(START - 5000))).toMatchObject({
      fraction: 1,
      done: true,
    });
    expect(streamProgress(job, 'main:customer', 'customer', at(START + 60_000)).fraction).toBe(1);
  });

  it('clamps a watermark before the history start to 0 and reports parking and errors', () => {
    const parked = streamState('main:customer', {
      watermark: new Date(HISTORY - 1000).toISOString(),
      parked: true,
      lastError: 'authorization failed',
    });
    expect(streamProgress(job, 'main:customer', 'customer', parked)).toMatchObject({
      fraction: 0,
      parked: true,
      lastError: 'authorization failed',
    });
  });
});

describe('backfill counts of a stream', () => {
  it('are 0 before the stream is polled', () => {
    expect(streamProgress(job, 'main:customer', 'customer', undefined)).toMatchObject({
      recordsRead: 0,
      eventsPublished: 0,
      webhooksDelivered: 0,
    });
  });

  it('take records read and events published from the stream state', () => {
    const state = streamState('main:customer', { recordsRead: 41_200, eventsPublished: 41_000 });
    expect(streamProgress(job, 'main:customer', 'customer', state)).toMatchObject({
      recordsRead: 41_200,
      eventsPublished: 41_000,
    });
  });

  it('count webhooks delivered from the delivery counter at the job start', () => {
    const started = { ...job, deliveredAtStart: { 'main:customer': 500 } };
    const state = streamState('main:customer');
    expect(streamProgress(started, 'main:customer', 'customer', state, 1700)).toMatchObject({
      webhooksDelivered: 1200,
    });
    // A counter read that lags behind the job's start value shows no progress, never less.
    expect(streamProgress(started, 'main:customer', 'customer', state, 400).webhooksDelivered).toBe(
      0,
    );
    // A job stored before the start values existed counts from 0.
    expect(streamProgress(job, 'main:customer', 'customer', state, 30).webhooksDelivered).toBe(30);
  });
});

describe('a finished backfill', () => {
  const firstSync = { doneAt: START + 42_000, recordsRead: 300, eventsPublished: 294 };
  const finished = streamState('main:customer', {
    watermark: new Date(START + 3_600_000).toISOString(),
    initialSyncDone: true,
    firstSync,
    // An hour of live polling after the first sync.
    recordsRead: 5_300,
    eventsPublished: 5_294,
  });

  it("reports its stream's first sync figures, not what the stream read since", () => {
    expect(streamProgress(job, 'main:customer', 'customer', finished)).toMatchObject({
      done: true,
      recordsRead: 300,
      eventsPublished: 294,
    });
  });

  it('stops its elapsed time where the last first sync completed', async () => {
    const state = new MemoryStateStore();
    await state.saveStream(finished, 0);
    const clock = new ManualClock(START + 3_600_000);
    const counter = new MemoryDeliveryCounter();
    const view = await backfillProgress(job, { state, deliveryCounter: counter, clock });
    expect(view).toMatchObject({
      done: true,
      recordsRead: 300,
      eventsPublished: 294,
      elapsedSeconds: 42,
      finishedAt: new Date(START + 42_000).toISOString(),
      etaSeconds: 0,
    });
  });

  it('runs on, with no end, while a stream is still reading', async () => {
    const state = new MemoryStateStore();
    await state.saveStream(
      streamState('main:customer', { watermark: new Date(HISTORY).toISOString() }),
      0,
    );
    const clock = new ManualClock(START + 30_000);
    const view = await backfillProgress(job, {
      state,
      deliveryCounter: new MemoryDeliveryCounter(),
      clock,
    });
    expect(view).toMatchObject({ done: false, elapsedSeconds: 30, finishedAt: null });
  });
});

describe('estimateSecondsLeft', () => {
  it('scales the elapsed time by the fraction still to go, rounded up', () => {
    expect(estimateSecondsLeft(0.25, 30_000)).toBe(90);
    expect(estimateSecondsLeft(0.5, 10_000)).toBe(10);
    expect(estimateSecondsLeft(0.9, 1_000)).toBe(1);
  });

  it('is null while nothing has moved, and 0 once done', () => {
    expect(estimateSecondsLeft(0, 30_000)).toBeNull();
    expect(estimateSecondsLeft(0.3, 0)).toBeNull();
    expect(estimateSecondsLeft(Number.NaN, 30_000)).toBeNull();
    expect(estimateSecondsLeft(1, 0)).toBe(0);
  });
});
