import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  advanceCounters,
  type PollDeps,
  type PollObserver,
  type StreamDefinition,
  syncCompleted,
} from '../../shared/polling/poll-context.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { envelope, type Harness, postRaw, startHarness } from '../simulator/harness.ts';
import { streamState } from '../state/state-store.contract.ts';
import { CollectingPublisher } from './poll-harness.ts';

describe('advanceCounters', () => {
  it('starts counters absent from an older state at 0', () => {
    expect(advanceCounters(streamState('main:customer'), { records: 100, events: 40 })).toEqual({
      recordsRead: 100,
      eventsPublished: 40,
    });
  });

  it('adds to the counters the state holds', () => {
    const state = streamState('main:customer', { recordsRead: 1000, eventsPublished: 7 });
    expect(advanceCounters(state, { records: 1000, events: 0 })).toEqual({
      recordsRead: 2000,
      eventsPublished: 7,
    });
  });
});

describe('syncCompleted', () => {
  it('keeps the first sync figures on the save that completes it', () => {
    const state = streamState('main:customer', { recordsRead: 900, eventsPublished: 880 });
    expect(syncCompleted(state, { records: 100, events: 20 }, 1234)).toEqual({
      initialSyncDone: true,
      recordsRead: 1000,
      eventsPublished: 900,
      firstSync: { doneAt: 1234, recordsRead: 1000, eventsPublished: 900 },
    });
  });

  it('leaves them alone on a later poll', () => {
    const state = streamState('main:customer', { initialSyncDone: true, recordsRead: 1000 });
    expect(syncCompleted(state, { records: 5, events: 5 }, 9999)).toEqual({
      initialSyncDone: true,
      recordsRead: 1005,
      eventsPublished: 5,
    });
  });
});

describe('progress counters on the stream state, against the simulator', () => {
  let sim: Harness;
  beforeAll(async () => {
    sim = await startHarness({ activity: false });
  });
  afterAll(async () => {
    await sim?.close();
  });

  /** A first sync with `emit`, 50 records a page, so each window has several pages. */
  function firstSync(observer: PollObserver = {}) {
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'customer,taxEnvironment', INITIAL_SYNC: 'emit' },
      sim.clock.now(),
    );
    const publisher = new CollectingPublisher();
    const store = new MemoryStateStore();
    const deps: PollDeps = {
      store,
      client: sim.client,
      publisher,
      clock: sim.clock,
      windows: settings.windows,
      pageCount: 50,
      observer,
    };
    const streams = streamDefinitions('main', settings);
    const run = async (definition: StreamDefinition) => {
      for (let attempt = 0; attempt < 50; attempt++) {
        const outcome = await pollStream(definition, deps, 'test');
        if (outcome.kind === 'polled' && outcome.caughtUp) return;
      }
      throw new Error(`${definition.streamId} did not catch up`);
    };
    return { store, publisher, streams, run };
  }

  it('counts every record read and event published of a windowed first sync', async () => {
    const windowRecords: number[] = [];
    const sync = firstSync({ onWindow: (_id, _window, records) => windowRecords.push(records) });
    const customers = sync.streams.find((s) => s.spec.entityType === 'customer')!;
    await sync.run(customers);
    const state = await sync.store.getStream(customers.streamId);
    const read = windowRecords.reduce((sum, n) => sum + n, 0);
    expect(read).toBeGreaterThan(50);
    expect(state).toMatchObject({
      recordsRead: read,
      eventsPublished: sync.publisher.events.length,
    });
  });

  it('keeps the first sync figures while later polls count on', async () => {
    const sync = firstSync();
    const customers = sync.streams.find((s) => s.spec.entityType === 'customer')!;
    await sync.run(customers);
    const done = await sync.store.getStream(customers.streamId);
    expect(done?.firstSync).toEqual({
      doneAt: expect.any(Number),
      recordsRead: done?.recordsRead,
      eventsPublished: done?.eventsPublished,
    });
    const customer = [...sim.sim.controls.model.customers.all()][0]!.record;
    sim.clock.advance(10_000);
    const update = { ...envelope(sim.sim), CustomerId: customer.Id, Notes: 'later change' };
    expect((await postRaw(sim.sim, 'customers/update', update)).status).toBe(200);
    sim.clock.advance(60_000);
    await sync.run(customers);
    const later = await sync.store.getStream(customers.streamId);
    expect(later?.recordsRead).toBeGreaterThan(done?.recordsRead ?? 0);
    expect(later?.firstSync).toEqual(done?.firstSync);
  });

  it('counts a snapshot stream the same way', async () => {
    const sync = firstSync();
    const taxes = sync.streams.find((s) => s.spec.entityType === 'taxEnvironment')!;
    await sync.run(taxes);
    const state = await sync.store.getStream(taxes.streamId);
    expect(sync.publisher.events.length).toBeGreaterThan(0);
    expect(state).toMatchObject({
      recordsRead: sync.publisher.events.length,
      eventsPublished: sync.publisher.events.length,
    });
  });

  it('counts each page once when a run is cut off after publishing and resumes', async () => {
    const whole = firstSync();
    const customers = whole.streams.find((s) => s.spec.entityType === 'customer')!;
    await whole.run(customers);
    const expected = await whole.store.getStream(customers.streamId);

    let pages = 0;
    const cut = firstSync({
      afterPublish: () => {
        // The third page is published, then the poller stops before storing it.
        if (++pages === 3) throw new Error('poller stopped between publish and commit');
      },
    });
    await cut.run(customers);
    const resumed = await cut.store.getStream(customers.streamId);
    expect(pages).toBeGreaterThan(3);
    // The cut-off page went out twice (same event ids); the counters hold it once.
    expect(cut.publisher.events.length).toBeGreaterThan(whole.publisher.events.length);
    expect(resumed?.recordsRead).toBe(expected?.recordsRead);
    expect(resumed?.eventsPublished).toBe(expected?.eventsPublished);
  });
});
