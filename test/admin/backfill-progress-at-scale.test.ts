import { describe, expect, it } from 'vitest';
import { backfillProgress } from '../../shared/admin/backfill.ts';
import { type BackfillJob, MemoryBackfillJobStore } from '../../shared/admin/backfill-jobs.ts';
import {
  BackfillSourcesCache,
  progressRefreshMs,
} from '../../shared/admin/backfill-sources-cache.ts';
import { ManualClock } from '../../shared/clock.ts';
import type { StreamDefinition } from '../../shared/polling/poll-context.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import {
  type DeliveryCountRange,
  type DeliveryCounts,
  MemoryDeliveryCounter,
} from '../../shared/webhooks/delivery-counter.ts';
import { streamState } from '../state/state-store.contract.ts';

const HISTORY = Date.UTC(2021, 0, 1);
const START = Date.UTC(2026, 0, 1);

/** A delivery counter that counts the ranges read (in AWS, a Query each). */
class CountingDeliveryCounter extends MemoryDeliveryCounter {
  queries = 0;
  override async read(ranges: readonly DeliveryCountRange[]) {
    this.queries += ranges.length;
    return super.read(ranges);
  }
}

/** A state store that counts the stream states read (in AWS, a GetItem each). */
class CountingStateStore extends MemoryStateStore {
  gets = 0;
  override async getStream(streamId: string) {
    this.gets += 1;
    return super.getStream(streamId);
  }
}

/** A job of `count` streams (`h<i>:customer`), each reset for its first sync, half read. */
async function jobOver(count: number, cache: BackfillSourcesCache | undefined) {
  const streamIds = Array.from({ length: count }, (_, i) => `h${i}:customer`);
  const job: BackfillJob = {
    id: 'bf_scale',
    startedAt: START,
    emit: true,
    entities: ['customer'],
    streamIds,
    historyStartMs: HISTORY,
    doneAtMs: START - 5_000,
  };
  const state = new CountingStateStore();
  const half = new Date(HISTORY + (START - HISTORY) / 2).toISOString();
  for (const streamId of streamIds) {
    await state.saveStream(
      streamState(streamId, {
        watermark: half,
        eventsPublished: 2,
        backfill: { kind: 'first-sync', jobId: job.id },
      }),
      0,
    );
  }
  const backfills = new MemoryBackfillJobStore();
  await backfills.put(job);
  const counter = new CountingDeliveryCounter();
  const clock = new ManualClock(START + 60_000);
  const definitions = streamIds.map((streamId) => {
    const [connectionId] = streamId.split(':');
    return { streamId, connectionId } as StreamDefinition;
  });
  const deps = {
    state,
    deliveryCounter: counter,
    clock,
    streams: async () => definitions,
    backfills,
    ...(cache ? { backfillSources: cache } : {}),
  };
  /** The dispatcher's counts of one batch: `counts` for every stream, detected at `at`. */
  const dispatched = (counts: Partial<DeliveryCounts>, at = START + 1_000) =>
    counter.add(new Map(streamIds.map((id) => [id, new Map([[at, counts]])])));
  const read = async () => backfillProgress((await backfills.get(job.id))!, deps);
  return { job, state, counter, clock, backfills, dispatched, read };
}

describe('reading the progress of a backfill over many streams', () => {
  it('reads its streams at most once per refresh interval, however often it is asked', async () => {
    const streams = 1_000;
    const on = await jobOver(streams, new BackfillSourcesCache());
    await on.dispatched({ events: 1, created: 1, delivered: 1 });
    const refreshMs = progressRefreshMs(streams);
    expect(refreshMs).toBeGreaterThanOrEqual(1_000);

    const first = await on.read();
    expect(first).toMatchObject({
      webhooksDelivered: streams,
      webhooksLeft: 0,
      eventsQueued: streams,
    });
    expect(on.counter.queries).toBe(streams);
    expect(on.state.gets).toBe(streams);

    // Asked every 100 ms until the interval has passed: no store request per stream.
    await on.dispatched({ events: 1, created: 1 });
    for (let asked = 100; asked < refreshMs; asked += 100) {
      await on.clock.advance(100);
      const view = await on.read();
      expect(view.webhooksDelivered).toBe(streams);
      // The time-derived figures are the present's.
      expect(view.elapsedSeconds).toBe(Math.floor((on.clock.now() - START) / 1_000));
    }
    expect(on.counter.queries).toBe(streams);
    expect(on.state.gets).toBe(streams);

    // Once it has passed, the figures are the counters' again.
    await on.clock.advance(100);
    expect(await on.read()).toMatchObject({
      webhooksDelivered: streams,
      webhooksLeft: streams,
      eventsQueued: 0,
    });
    expect(on.counter.queries).toBe(2 * streams);
    expect(on.state.gets).toBe(2 * streams);
  });

  it('grows its refresh interval with the stream count, from none for a few streams to at most 30 s', () => {
    expect(progressRefreshMs(1)).toBe(0);
    expect(progressRefreshMs(13)).toBe(0);
    expect(progressRefreshMs(6_500)).toBeGreaterThan(progressRefreshMs(1_000));
    expect(progressRefreshMs(6_500)).toBeLessThanOrEqual(30_000);
    expect(progressRefreshMs(1_000_000)).toBe(30_000);
  });

  it('reads a job of a few streams afresh every time', async () => {
    const on = await jobOver(13, new BackfillSourcesCache());
    await on.read();
    await on.dispatched({ events: 2, created: 2, delivered: 2 });
    expect(await on.read()).toMatchObject({ webhooksDelivered: 26, eventsQueued: 0 });
    expect(on.counter.queries).toBe(26);
  });

  it('reads afresh at once when a stream is taken over, counting only the events before', async () => {
    const streams = 1_000;
    const on = await jobOver(streams, new BackfillSourcesCache());
    await on.dispatched({ events: 1, created: 1, delivered: 1 }, START + 1_000);
    await on.dispatched({ events: 1, created: 1, delivered: 1 }, START + 9_000);
    expect((await on.read()).webhooksDelivered).toBe(2 * streams);
    await on.backfills.keep(on.job.id, { deliveredUntil: { 'h0:customer': START + 5_000 } });
    const view = await on.read();
    expect(view.webhooksDelivered).toBe(2 * streams - 1);
    expect(view.streams[0]).toMatchObject({ streamId: 'h0:customer', webhooksDelivered: 1 });
  });

  it('shares one reading between requests made while it runs, and reads again after a failure', async () => {
    const streams = 1_000;
    const on = await jobOver(streams, new BackfillSourcesCache());
    const views = await Promise.all([on.read(), on.read(), on.read()]);
    expect(views.map((v) => v.streams.length)).toEqual([streams, streams, streams]);
    expect(on.counter.queries).toBe(streams);

    const failing = await jobOver(streams, new BackfillSourcesCache());
    const read = failing.counter.read.bind(failing.counter);
    failing.counter.read = async () => {
      throw new Error('throttled');
    };
    await expect(failing.read()).rejects.toThrow('throttled');
    failing.counter.read = read;
    await expect(failing.read()).resolves.toMatchObject({ webhooksDelivered: 0 });
  });
});
