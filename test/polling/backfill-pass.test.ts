import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AdminDeps } from '../../shared/admin/admin-deps.ts';
import { backfillProgress, startBackfill } from '../../shared/admin/backfill.ts';
import { MemoryBackfillJobStore } from '../../shared/admin/backfill-jobs.ts';
import { startStreamBackfill } from '../../shared/admin/backfill-stream-start.ts';
import { handleAdminRequest } from '../../shared/admin/router.ts';
import { ManualClock, seededRandom } from '../../shared/clock.ts';
import type { CallOptions } from '../../shared/connector/client.ts';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import { activePass } from '../../shared/polling/backfill-state.ts';
import {
  type PollDeps,
  type StreamDefinition,
  stateHandle,
} from '../../shared/polling/poll-context.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import type { WindowedPollSpec } from '../../shared/polling/poll-spec.ts';
import { initialStreamState, pollStream } from '../../shared/polling/poll-stream.ts';
import { nextPassWindow, runBackfillPass } from '../../shared/polling/strategies/backfill-pass.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import type { BackfillPass } from '../../shared/state/state-store.ts';
import { MemoryDeliveryCounter } from '../../shared/webhooks/delivery-counter.ts';
import { type Harness, startHarness } from '../simulator/harness.ts';
import { streamTallies } from '../support/delivery-tallies.ts';
import { collectingPollDeps } from './poll-harness.ts';

let sim: Harness;
beforeAll(async () => {
  sim = await startHarness({ activity: false });
});
afterAll(async () => {
  await sim?.close();
});

/** A customer stream synced (baseline) against the simulator, and a backfill to start on it. */
async function syncedCustomers() {
  const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer' }, sim.clock.now());
  const streams: StreamDefinition[] = streamDefinitions('main', settings);
  const state = new MemoryStateStore();
  const pollDeps = collectingPollDeps(state, sim.client, sim.clock, settings);
  const { publisher } = pollDeps;
  const poll = () => pollStream(streams[0]!, pollDeps, 'test');
  expect(await poll()).toMatchObject({ kind: 'polled', caughtUp: true });
  expect(publisher.events).toEqual([]);
  const backfills = new MemoryBackfillJobStore();
  const deps = {
    state,
    streams: async () => streams,
    windows: settings.windows,
    backfills,
    deliveryCounter: new MemoryDeliveryCounter(),
    clock: sim.clock,
    random: seededRandom(7),
  } as unknown as AdminDeps;
  const model = sim.sim.controls.model;
  // The customers the stream holds (those updated since the history start).
  const held: string[] = [];
  for await (const page of state.scanSnapshots(streams[0]!.streamId))
    held.push(...page.filter((s) => !s.deleted).map((s) => s.entityId));
  const customers = () => held;
  const update = (id: string, notes: string) =>
    model.update(model.customers, 'customer', id, { Notes: notes });
  return { state, streams, publisher, poll, pollDeps, deps, customers, update };
}

describe('a backfill of a synced stream runs beside its live polls', () => {
  it('loses no change made as it starts or while it runs, and publishes each once', async () => {
    const { publisher, poll, deps, customers, update } = await syncedCustomers();
    const [first, second] = customers();
    await sim.clock.advance(5_000);
    update(first!, 'just before the backfill');
    const job = await startBackfill({ emit: false }, deps);
    await sim.clock.advance(2_000);
    update(second!, 'while it runs');
    await sim.clock.advance(2_000);
    // One run: the live window first (both changes), then the pass over the history.
    expect(await poll()).toMatchObject({ kind: 'polled', caughtUp: true });

    const view = await backfillProgress(job, deps);
    expect(view).toMatchObject({ done: true, streams: [{ done: true, endedBy: null }] });
    expect(view.recordsRead).toBeGreaterThanOrEqual(customers().length);
    const changed = publisher.events.map((e) => `${e.type} ${e.subject}`);
    expect(changed.sort()).toEqual(
      [`customer.updated ${first}`, `customer.updated ${second}`].sort(),
    );
  });

  it('with --emit publishes every customer once as created, before any change of it, under ids of its own', async () => {
    const { publisher, poll, deps, customers, update } = await syncedCustomers();
    const all = customers();
    await sim.clock.advance(4_000);
    // A change made just before the backfill, which the live polls had not read yet.
    update(all[1]!, 'changed just before the emit backfill');
    await sim.clock.advance(1_000);
    const job = await startBackfill({ emit: true }, deps);
    // A change the live window sees before the pass reaches the record.
    await sim.clock.advance(2_000);
    update(all[0]!, 'changed during the emit backfill');
    await sim.clock.advance(2_000);
    expect(await poll()).toMatchObject({ kind: 'polled', caughtUp: true });

    const created = publisher.events.filter((e) => e.type === 'customer.created');
    expect(new Set(created.map((e) => e.subject))).toEqual(new Set(all));
    expect(created).toHaveLength(all.length);
    for (const changed of [all[0]!, all[1]!]) {
      const types = publisher.events.filter((e) => e.subject === changed).map((e) => e.type);
      expect(types).toEqual(['customer.created', 'customer.updated']);
    }
    // The created events the live poll sent ahead of the changes count as the backfill's.
    expect((await backfillProgress(job, deps)).eventsPublished).toBe(all.length);
    // Once the dispatcher has fanned out every event published (it counts each it is handed),
    // none is left queued: the ones sent ahead count once, not as the pass's and as the live
    // polls' too (the CLI's backfill waited for them for ever).
    expect((await backfillProgress(job, deps)).eventsQueued).toBe(publisher.events.length);
    await deps.deliveryCounter.add(
      streamTallies('main:customer', sim.clock.now(), { events: publisher.events.length }),
    );
    expect((await backfillProgress(job, deps)).eventsQueued).toBe(0);

    // A second backfill sends them all again (new ids), and the first job keeps its figures.
    publisher.events.length = 0;
    // The dispatcher delivered the first job's events to one subscriber.
    await deps.deliveryCounter.add(
      streamTallies('main:customer', sim.clock.now(), { delivered: all.length }),
    );
    const firstView = await backfillProgress(job, deps);
    expect(firstView.webhooksDelivered).toBe(all.length);
    await sim.clock.advance(5_000);
    const again = await startBackfill({ emit: true }, deps);
    await sim.clock.advance(2_000);
    expect(await poll()).toMatchObject({ kind: 'polled', caughtUp: true });
    await deps.deliveryCounter.add(
      streamTallies('main:customer', sim.clock.now(), { delivered: all.length }),
    );
    const resent = publisher.events.filter((e) => e.type === 'customer.created');
    expect(resent).toHaveLength(all.length);
    const firstIds = new Set(created.map((e) => e.id));
    expect(resent.filter((e) => firstIds.has(e.id))).toEqual([]);
    // As GET /backfill/{id} reads it: the job as stored, with the outcome its first read kept.
    const stored = (await deps.backfills.get(job.id))!;
    // Its webhooks delivered stop where the second job took the stream over.
    expect(await backfillProgress(stored, deps)).toMatchObject({
      recordsRead: firstView.recordsRead,
      eventsPublished: firstView.eventsPublished,
      finishedAt: firstView.finishedAt,
      webhooksDelivered: all.length,
    });
    expect(await backfillProgress(again, deps)).toMatchObject({
      done: true,
      eventsPublished: all.length,
      webhooksDelivered: all.length,
    });
  });
});

describe('an emitting backfill that starts while a live poll that read the state before it runs', () => {
  // Seen in the soak with --backfill-after: the poll publishes the change without the backfill's
  // `created` ahead of it and stores the entity's snapshot after the backfill began; its save
  // loses to the pass, and the pass reads only up to where the live polls had read.
  it('still publishes the created of the entity whose change that poll published, after it', async () => {
    const { state, streams, publisher, poll, pollDeps, customers, update } =
      await syncedCustomers();
    const all = customers();
    await sim.clock.advance(4_000);
    update(all[0]!, 'changed as the backfill starts');
    await sim.clock.advance(2_000);
    const publish = pollDeps.publisher.publish.bind(pollDeps.publisher);
    const racing = vi
      .spyOn(pollDeps.publisher, 'publish')
      .mockImplementationOnce(async (events) => {
        // Begun a moment before this poll judged its page, saved on the stream after it read it.
        await startStreamBackfill(state, streams[0]!, {
          id: 'bf_racing',
          emit: true,
          startedAt: sim.clock.now() - 500,
        });
        return publish(events);
      });
    expect(await poll()).toMatchObject({ kind: 'skipped', reason: 'changed' });
    racing.mockRestore();
    await sim.clock.advance(2_000);
    expect(await poll()).toMatchObject({ kind: 'polled', caughtUp: true });

    const created = publisher.events.filter((e) => e.type === 'customer.created');
    expect(new Set(created.map((e) => e.subject))).toEqual(new Set(all));
    expect(created).toHaveLength(all.length);
    // Its change was out before the backfill's created could go ahead of it.
    const types = publisher.events.filter((e) => e.subject === all[0]).map((e) => e.type);
    expect(types).toEqual(['customer.updated', 'customer.created']);
  });
});

describe('a change set aside for breaking its schema', () => {
  it('is published as updated by a backfill once the record reads as valid, though it did not change again', async () => {
    const { state, publisher, poll, deps, customers } = await syncedCustomers();
    const model = sim.sim.controls.model;
    const [broken] = customers();
    await sim.clock.advance(5_000);
    model.update(model.customers, 'customer', broken!, {
      Notes: 'changed while unreadable',
      Classifications: ['FutureClassification'],
    } as never);
    // Past the overlap (5 s), so the next live window no longer reads the record.
    await sim.clock.advance(10_000);
    expect(await poll()).toMatchObject({ kind: 'polled', setAside: { records: 1 } });
    expect(publisher.events).toEqual([]);

    // What a bridge that reads the new value sees: the same record, valid, UpdatedUtc unchanged.
    model.customers.get(broken!)!.record.Classifications = [];
    await sim.clock.advance(60_000);
    expect(await poll()).toMatchObject({ kind: 'polled' });
    expect(publisher.events).toEqual([]);
    await startBackfill({ emit: false }, deps);
    expect(await poll()).toMatchObject({ kind: 'polled', caughtUp: true });
    expect(publisher.events.map((e) => `${e.type} ${e.subject}`)).toEqual([
      `customer.updated ${broken}`,
    ]);
    expect(publisher.events[0]!.data.changedFields).toContain('Notes');
    const stream = (await state.listStreams())[0]!;
    expect(stream.recordsSetAside).toBe(1);
  });
});

describe('a pass paused by the backlog', () => {
  it('leaves the stream due at its interval (each run reads its live window first), not at once', async () => {
    const { state, poll, pollDeps, deps } = await syncedCustomers();
    await sim.clock.advance(5_000);
    await startBackfill({ emit: true }, deps);
    pollDeps.backlog = { aboveBound: async () => true } as PollDeps['backlog'];
    try {
      expect(await poll()).toMatchObject({ kind: 'polled', caughtUp: true });
      const stream = (await state.getStream('main:customer'))!;
      expect(stream.nextDueAt).toBeGreaterThan(sim.clock.now());
      expect(activePass(stream)).toMatchObject({ watermark: null, recordsRead: 0 });
    } finally {
      delete pollDeps.backlog;
    }
  });
});

describe('a pass whose every page leaves the backlog above its bound', () => {
  it('reads each page once: the page read ahead when the bound is crossed is taken, not read again', async () => {
    const { publisher, poll, pollDeps, deps } = await syncedCustomers();
    await sim.clock.advance(5_000);
    const job = await startBackfill({ emit: true }, deps);
    const pagesFrom = sim.sim.controls.requestLog().length;
    let delivered = 0;
    pollDeps.pageCount = 20;
    pollDeps.backlog = { aboveBound: async () => publisher.events.length - delivered > 10 };
    try {
      for (let run = 0; run < 100 && !(await backfillProgress(job, deps)).done; run++) {
        expect(await poll()).toMatchObject({ kind: 'polled' });
        delivered = publisher.events.length;
        await sim.clock.advance(60_000);
      }
      const view = await backfillProgress(job, deps);
      expect(view).toMatchObject({ done: true });
      const read = sim.sim.controls
        .requestLog()
        .slice(pagesFrom)
        .filter((r) => r.operation === 'customers/getAll')
        .reduce((sum, r) => sum + (r.items ?? 0), 0);
      // Quiet live windows read nothing: every record the connector sent is one the pass read.
      expect(read).toBe(view.recordsRead);
    } finally {
      delete pollDeps.backlog;
    }
  });
});

describe('nextPassWindow', () => {
  const windows = { overlapMs: 5_000, settleLagMs: 1_000, historyStartMs: 0, minWindowMs: 0 };
  const settings = { windows, pageCount: 1000 };
  const pass = {
    kind: 'pass' as const,
    jobId: 'bf_1',
    emit: true,
    startedAt: 100_000,
    endUtc: new Date(100_000).toISOString(),
    watermark: null,
    window: null,
    recordsRead: 0,
    eventsPublished: 0,
    doneAt: null,
  };

  it('reads from the history start to its end, and waits for the settle lag before its last window', () => {
    expect(nextPassWindow(pass, 100_500, settings)).toBe('wait');
    expect(nextPassWindow(pass, 101_000, settings)).toMatchObject({
      startUtc: new Date(0).toISOString(),
      endUtc: pass.endUtc,
      cursor: null,
    });
  });

  it('starts each next window where the last ended, once that end had settled before the pass began', () => {
    // Read again, the overlap's records would be published twice (same ids, counted twice).
    const watermark = new Date(50_000).toISOString();
    expect(nextPassWindow({ ...pass, watermark }, 101_000, settings)).toMatchObject({
      startUtc: watermark,
      endUtc: pass.endUtc,
    });
  });

  it('starts a next window the overlap before the last end when that end had not settled long before the pass', () => {
    const watermark = new Date(96_000).toISOString();
    expect(nextPassWindow({ ...pass, watermark }, 101_000, settings)).toMatchObject({
      startUtc: new Date(91_000).toISOString(),
      endUtc: pass.endUtc,
    });
  });

  it('resumes its window in progress, and is done once its watermark reaches its end', () => {
    const window = { startUtc: 'a', endUtc: 'b', cursor: 'c', count: 1000, pages: 3 };
    expect(nextPassWindow({ ...pass, window }, 0, settings)).toBe(window);
    expect(nextPassWindow({ ...pass, watermark: pass.endUtc }, 200_000, settings)).toBe('done');
  });
});

describe('a slice of a pass', () => {
  /** A pass of the customer stream in `store`, over a connector whose budget never grants a bulk request. */
  async function passOnStalledConnector(passFields: Partial<BackfillPass> = {}) {
    const clock = new ManualClock(Date.UTC(2026, 2, 10));
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'customer', POLL_INTERVAL: '1s' },
      clock.now(),
    );
    const [definition] = streamDefinitions('main', settings);
    const asked = { pages: 0 };
    const client = {
      async *paginate(_operation: string, _body: unknown, options: CallOptions) {
        asked.pages++;
        await new Promise((_, reject) =>
          options.waitSignal?.addEventListener('abort', () => reject(options.waitSignal?.reason)),
        );
      },
    } as unknown as ConnectorClient;
    const store = new MemoryStateStore();
    const pass: BackfillPass = {
      kind: 'pass',
      jobId: 'bf_1',
      emit: true,
      startedAt: clock.now() - 60_000,
      endUtc: new Date(clock.now() - 60_000).toISOString(),
      watermark: null,
      window: null,
      recordsRead: 0,
      eventsPublished: 0,
      doneAt: null,
      ...passFields,
    };
    const saved = await store.saveStream(
      { ...initialStreamState(definition!, clock.now()), initialSyncDone: true, backfill: pass },
      0,
    );
    const deps = collectingPollDeps(store, client, clock, settings);
    const slice = runBackfillPass(
      definition!,
      definition!.spec as WindowedPollSpec,
      deps,
      stateHandle(store, saved),
    );
    return { clock, store, definition: definition!, asked, slice };
  }

  it('gives up a page still waiting for the budget when the live poll is due, so the live poll never waits behind it', async () => {
    const { clock, store, definition, asked, slice } = await passOnStalledConnector();
    await vi.waitFor(() => expect(asked.pages).toBe(1));
    await clock.advance(1_000);
    expect(await slice).toEqual({ done: false });
    expect(activePass((await store.getStream(definition.streamId))!)).toMatchObject({
      window: null,
    });
  });

  it('waits, asking nothing, while its last window waits out the settle lag, then reads it', async () => {
    const now = Date.UTC(2026, 2, 10);
    const { clock, asked, slice } = await passOnStalledConnector({
      startedAt: now,
      endUtc: new Date(now).toISOString(),
      watermark: new Date(now - 1_000).toISOString(),
    });
    let ended = false;
    void slice.then(() => {
      ended = true;
    });
    // Until the settle lag (100 ms) has passed over its end: no request, and no return either.
    await clock.advance(80);
    expect({ ended, pages: asked.pages }).toEqual({ ended: false, pages: 0 });
    // Then its last window is asked for, once.
    await clock.advance(20);
    await vi.waitFor(() => expect(asked.pages).toBe(1));
    // The live poll is due a second in: the slice gives its page up and returns.
    await clock.advance(900);
    expect(await slice).toEqual({ done: false });
    expect(asked.pages).toBe(1);
  });
});

describe('a stream reset', () => {
  it('sends its created events again after the reset (INITIAL_SYNC=emit), under ids of their own', async () => {
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'customer', INITIAL_SYNC: 'emit' },
      sim.clock.now(),
    );
    const streams = streamDefinitions('main', settings);
    const state = new MemoryStateStore();
    const deps = collectingPollDeps(state, sim.client, sim.clock, settings);
    const { publisher } = deps;
    await pollStream(streams[0]!, deps, 'test');
    const before = new Set(publisher.events.map((e) => e.id));
    expect(before.size).toBeGreaterThan(0);
    publisher.events.length = 0;

    const admin = {
      state,
      streams: async () => streams,
      clock: sim.clock,
      deliveryCounter: new MemoryDeliveryCounter(),
      backfills: new MemoryBackfillJobStore(),
    } as unknown as AdminDeps;
    const reset = await handleAdminRequest(
      { method: 'POST', path: '/streams/main:customer/reset', query: {}, body: undefined },
      admin,
    );
    expect(reset.status).toBe(200);
    await sim.clock.advance(1_000);
    await pollStream(streams[0]!, deps, 'test');
    expect(publisher.events).toHaveLength(before.size);
    expect(publisher.events.filter((e) => before.has(e.id))).toEqual([]);
  });
});

describe('a backfill of a stream that lists every record (snapshot, tracked ids, prices)', () => {
  /** A synced stream of `entityType`, polled once, and the admin deps a backfill of it needs. */
  async function syncedListing(entityType: string) {
    const settings = pollSettingsFromEnv({ POLL_ENTITIES: entityType }, sim.clock.now());
    const streams: StreamDefinition[] = streamDefinitions('main', settings);
    const state = new MemoryStateStore();
    const pollDeps = collectingPollDeps(state, sim.client, sim.clock, settings);
    const poll = () => pollStream(streams[0]!, pollDeps, 'test');
    expect(await poll()).toMatchObject({ kind: 'polled' });
    pollDeps.publisher.events.length = 0;
    const deps = {
      state,
      streams: async () => streams,
      windows: settings.windows,
      backfills: new MemoryBackfillJobStore(),
      deliveryCounter: new MemoryDeliveryCounter(),
      clock: sim.clock,
      random: seededRandom(11),
    } as unknown as AdminDeps;
    return { streamId: streams[0]!.streamId, publisher: pollDeps.publisher, poll, deps };
  }

  it.each([
    ['billingAutomation', true],
    ['taxEnvironment', true],
  ])(
    'of %s (emit %s) leaves no event queued once the dispatcher has fanned out every one published',
    async (entityType, emit) => {
      const { streamId, publisher, poll, deps } = await syncedListing(entityType);
      await sim.clock.advance(2_000);
      const job = await startBackfill({ emit }, deps);
      await sim.clock.advance(2_000);
      expect(await poll()).toMatchObject({ kind: 'polled' });
      const read = await backfillProgress(job, deps);
      expect(read.done).toBe(true);
      if (emit) expect(read.eventsPublished).toBeGreaterThan(0);
      // The whole listing poll was the pass: its events count once among those the job waits
      // to see fanned out, not as the pass's and as the stream's own too.
      expect(read.eventsQueued).toBe(publisher.events.length);
      await deps.deliveryCounter.add(
        streamTallies(streamId, sim.clock.now(), { events: publisher.events.length }),
      );
      expect(await backfillProgress(job, deps)).toMatchObject({
        eventsQueued: 0,
        deliveryDone: true,
      });
    },
  );
});
