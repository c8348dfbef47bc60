import { describe, expect, it } from 'vitest';
import { handleAdminRequest } from '../../shared/admin/router.ts';
import { SYNCED_UNTIL, savePass, useDynamoBridges } from './support/dynamo-bridge.ts';
import { HARNESS_START_MS } from './support/harness.ts';

const newBridge = useDynamoBridges('superseded');

/**
 * The dynalite bridge with `hotel-1`, a backfill of its streams (the customers' pass halfway
 * with 120 records read and 118 events published, the resources' with 40 and 39), and the
 * clock 5 s on.
 */
async function bridgeWithRunningBackfill() {
  const bridge = await newBridge();
  const { deps, state, call, harness } = bridge;
  const started = await call('POST', '/backfill', { connections: ['hotel-1'], emit: true });
  expect(started.status).toBe(202);
  const { id } = started.body as { id: string };
  const halfway = new Date((deps.windows.historyStartMs + Date.parse(SYNCED_UNTIL)) / 2);
  await savePass(state, 'hotel-1:customer', {
    watermark: halfway.toISOString(),
    recordsRead: 120,
    eventsPublished: 118,
  });
  await savePass(state, 'hotel-1:resource', {
    watermark: halfway.toISOString(),
    recordsRead: 40,
    eventsPublished: 39,
  });
  await harness.clock.advance(5_000);
  return { ...bridge, id };
}

describe('a backfill part taken over while it runs', () => {
  it('keeps what it read and published before a later backfill took its stream over', async () => {
    const { call, id } = await bridgeWithRunningBackfill();
    const later = await call('POST', '/backfill', {
      connections: ['hotel-1'],
      entities: ['customer'],
    });
    expect(later.status).toBe(202);
    // The later job counts from its own start.
    expect(later.body).toMatchObject({ recordsRead: 0, eventsPublished: 0 });

    const earlier = await call('GET', `/backfill/${id}`);
    expect(earlier.body).toMatchObject({
      done: false,
      recordsRead: 160,
      eventsPublished: 157,
      streams: [
        {
          streamId: 'hotel-1:customer',
          done: true,
          endedBy: 'superseded',
          recordsRead: 120,
          eventsPublished: 118,
        },
        { streamId: 'hotel-1:resource', done: false, recordsRead: 40, eventsPublished: 39 },
      ],
    });
  });

  it('keeps what it read and published before a streams reset took its stream over', async () => {
    const { call, id, harness } = await bridgeWithRunningBackfill();
    expect((await call('POST', '/streams/hotel-1:customer/reset')).status).toBe(200);

    const earlier = await call('GET', `/backfill/${id}`);
    expect(earlier.body).toMatchObject({
      recordsRead: 160,
      eventsPublished: 157,
      streams: [
        { streamId: 'hotel-1:customer', endedBy: 'superseded', recordsRead: 120 },
        { streamId: 'hotel-1:resource', done: false },
      ],
    });
    // The figures stay as they were at the takeover, whatever the stream does next.
    await harness.clock.advance(60_000);
    expect((await call('GET', `/backfill/${id}`)).body).toMatchObject({
      streams: [{ endedBy: 'superseded', recordsRead: 120, eventsPublished: 118 }, {}],
    });
  });

  it('keeps a part that completed unseen as completed, with its own end', async () => {
    const { state, call, id } = await bridgeWithRunningBackfill();
    await savePass(state, 'hotel-1:customer', {
      watermark: SYNCED_UNTIL,
      recordsRead: 200,
      eventsPublished: 198,
      doneAt: HARNESS_START_MS + 2_000,
    });
    await call('POST', '/backfill', { connections: ['hotel-1'], entities: ['customer'] });

    expect((await call('GET', `/backfill/${id}`)).body).toMatchObject({
      streams: [
        { streamId: 'hotel-1:customer', endedBy: null, recordsRead: 200, eventsPublished: 198 },
        { streamId: 'hotel-1:resource', done: false },
      ],
    });
  });

  it('ends a part as removed when the stream a reset takes over had lost its connection', async () => {
    const { deps, call, id } = await bridgeWithRunningBackfill();
    const removed = await handleAdminRequest(
      {
        method: 'DELETE',
        path: '/connections/hotel-1',
        query: { keepState: 'true' },
        body: undefined,
      },
      deps,
    );
    expect(removed.body).toMatchObject({ removed: true });
    expect((await call('POST', '/streams/hotel-1:customer/reset')).status).toBe(200);

    expect((await call('GET', `/backfill/${id}`)).body).toMatchObject({
      streams: [
        { streamId: 'hotel-1:customer', endedBy: 'removed', recordsRead: 120 },
        { streamId: 'hotel-1:resource', endedBy: 'removed', recordsRead: 40 },
      ],
    });
  });
});
