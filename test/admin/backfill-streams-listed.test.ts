import { afterEach, describe, expect, it } from 'vitest';
import type { BackfillJobView, BackfillStreamProgress } from '../../shared/admin/backfill.ts';
import { listedBackfillStreams } from '../../shared/admin/backfill-streams-listed.ts';
import { escapedJsonBytes } from '../../shared/admin/stream-page.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A harness with a job of its three streams (`main:customer`, `:resource`, `:taxEnvironment`). */
async function startedJob(): Promise<{ harness: AdminHarness; id: string }> {
  harness = createAdminHarness();
  const started = await harness.call('POST', '/backfill');
  return { harness, id: (started.body as BackfillJobView).id };
}

/** One stream's progress, reading unless told otherwise. */
function stream(streamId: string, overrides: Partial<BackfillStreamProgress> = {}) {
  return {
    streamId,
    entityType: 'customer',
    fraction: 0.5,
    done: false,
    watermark: null,
    parked: false,
    lastError: null,
    endedBy: null,
    recordsRead: 10,
    eventsPublished: 10,
    webhooksDelivered: 0,
    webhooksDeadLettered: 0,
    webhooksLeft: 0,
    eventsQueued: 0,
    ...overrides,
  } satisfies BackfillStreamProgress;
}

describe('GET /backfill/{id}?streams=N', () => {
  it('answers the figures and the stream counts alone with streams=0, every stream without it', async () => {
    const { harness, id } = await startedJob();

    const totals = await harness.call('GET', `/backfill/${id}`, { query: { streams: '0' } });
    const whole = await harness.call('GET', `/backfill/${id}`);

    expect(totals.status).toBe(200);
    const counts = { total: 3, reading: 3, parked: 0, ended: 0, caughtUp: 0 };
    expect(totals.body).toMatchObject({ streams: [], streamCounts: counts, streamsLeftOut: 3 });
    const wholeView = whole.body as BackfillJobView;
    expect(wholeView.streams).toHaveLength(3);
    expect(wholeView).toMatchObject({ streamCounts: counts, streamsLeftOut: 0 });
    // The figures are the job's whatever is listed.
    const { streams: _a, streamsLeftOut: _b, ...figures } = wholeView;
    expect(totals.body).toMatchObject(figures);
  });

  it('refuses a streams value that is no whole number, and a misspelt parameter, with 400', async () => {
    const { harness, id } = await startedJob();
    const queries: Record<string, string>[] = [
      { streams: 'false' },
      { streams: '-1' },
      { streams: '1e2' },
      { stream: '0' },
    ];
    for (const query of queries)
      expect(await harness.call('GET', `/backfill/${id}`, { query })).toMatchObject({
        status: 400,
      });
  });

  it('keeps an answer within the deployment byte bound, listing the streams still reading first', async () => {
    const { harness, id } = await startedJob();
    // The customer stream is done; the other two still read.
    const customer = (await harness.state.getStream('main:customer'))!;
    await harness.state.saveStream(
      {
        ...customer,
        initialSyncDone: true,
        watermark: new Date(harness.clock.now()).toISOString(),
      },
      customer.version,
    );
    const whole = (await harness.call('GET', `/backfill/${id}`)).body as BackfillJobView;
    expect(whole.streamCounts).toMatchObject({ reading: 2, caughtUp: 1 });
    const twoStreamsBytes = escapedJsonBytes({ ...whole, streams: whole.streams.slice(0, 2) });
    harness.deps.streamListBytes = twoStreamsBytes + 20;

    const bounded = await harness.call('GET', `/backfill/${id}`);
    const started = await harness.call('POST', '/backfill', { body: { entities: 'customer' } });

    const view = bounded.body as BackfillJobView;
    expect(escapedJsonBytes(view)).toBeLessThanOrEqual(harness.deps.streamListBytes);
    expect(view.streams.map((s) => s.streamId)).toEqual(['main:resource', 'main:taxEnvironment']);
    expect(view).toMatchObject({ streamsLeftOut: 1, streamCounts: { total: 3 } });
    expect(escapedJsonBytes(started.body)).toBeLessThanOrEqual(harness.deps.streamListBytes);
  });
});

describe('listedBackfillStreams', () => {
  const view = (streams: BackfillStreamProgress[]) => ({ streams }) as unknown as BackfillJobView;

  it('chooses the streams reading, then parked, ended, caught up, and lists them in the job order', () => {
    const streams = [
      stream('a', { done: true, fraction: 1 }),
      stream('b', { done: true, endedBy: 'removed' }),
      stream('c', { parked: true, lastError: 'token refused' }),
      stream('d'),
    ];
    const ids = (limit: number) =>
      listedBackfillStreams(view(streams), { limit }).streams.map((s) => s.streamId);

    expect(ids(1)).toEqual(['d']);
    expect(ids(2)).toEqual(['c', 'd']);
    expect(ids(3)).toEqual(['b', 'c', 'd']);
    expect(ids(4)).toEqual(['a', 'b', 'c', 'd']);
    expect(listedBackfillStreams(view(streams), { limit: 2 }).streamsLeftOut).toBe(2);
    // A view that had left streams out already counts them too.
    const listed = listedBackfillStreams(view(streams), { limit: 2 });
    expect(listedBackfillStreams(listed, { limit: 0 }).streamsLeftOut).toBe(4);
  });
});
