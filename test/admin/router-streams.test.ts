import { afterEach, describe, expect, it } from 'vitest';
import { BACKFILL_ID_PATTERN } from '../../shared/admin/backfill-jobs.ts';
import { toBudgetView } from '../../shared/admin/streams-view.ts';
import { MemoryGrantLedger } from '../../shared/connector/budget/grant-ledger.ts';
import { TokenBudget } from '../../shared/connector/budget/token-budget.ts';
import type { BackfillPass } from '../../shared/state/state-store.ts';
import { streamState } from '../state/state-store.contract.ts';
import { streamTallies } from '../support/delivery-tallies.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

type Job = {
  id: string;
  startedAt: string;
  done: boolean;
  fraction: number;
  rangeFraction: number;
  emit: boolean;
  streams: { streamId: string; fraction: number; rangeFraction: number; done: boolean }[];
};

describe('admin API: streams', () => {
  it('lists configured and stored streams with watermark, last poll, lag, errors, window and counters', async () => {
    harness = createAdminHarness();
    const now = harness.clock.now();
    await harness.state.saveStream(
      streamState('main:customer', {
        watermark: new Date(now - 90_000).toISOString(),
        lastPollAt: now - 5000,
        consecutiveFailures: 2,
        lastError: 'ConnectorError: timeout',
        window: {
          startUtc: '2026-02-28T23:58:00.000Z',
          endUtc: '2026-02-28T23:59:55.000Z',
          cursor: 'c',
          count: 500,
          pages: 3,
        },
        recordsRead: 2500,
        eventsPublished: 40,
      }),
      0,
    );
    await harness.state.saveStream(
      streamState('old:export', { parked: true, parkedReason: 'authorization failed' }),
      0,
    );

    const response = await harness.call('GET', '/streams');
    expect(response.status).toBe(200);
    const streams = (response.body as { streams: Record<string, unknown>[] }).streams;
    expect(streams.map((s) => s.id)).toEqual([
      'main:customer',
      'main:resource',
      'main:taxEnvironment',
      'old:export',
    ]);
    expect(streams[0]).toMatchObject({
      entityType: 'customer',
      configured: true,
      strategy: 'windowed',
      lagSeconds: 90,
      lastPollAt: new Date(now - 5000).toISOString(),
      consecutiveFailures: 2,
      lastError: 'ConnectorError: timeout',
      windowInProgress: { startUtc: '2026-02-28T23:58:00.000Z', pages: 3 },
      recordsRead: 2500,
      eventsPublished: 40,
    });
    expect(streams[1]).toMatchObject({
      watermark: null,
      lagSeconds: null,
      lastPollAt: null,
      recordsRead: 0,
      eventsPublished: 0,
    });
    expect(streams[2]).toMatchObject({ strategy: 'snapshot' });
    expect(streams[3]).toMatchObject({
      configured: false,
      strategy: null,
      parked: true,
      parkedReason: 'authorization failed',
    });
  });

  it('shows the connector budget per connection: requests in the window, live reserve, queued by priority', async () => {
    harness = createAdminHarness();
    const budget = new TokenBudget(
      'key',
      { requests: 200, windowMs: 30_000, marginMs: 500 },
      harness.clock,
      new MemoryGrantLedger(),
    );
    await budget.acquire({ priority: 'live', streamId: 'main:customer', intervalMs: 5_000 });
    await budget.acquire({ priority: 'bulk' });
    harness.deps.budgets = () => [toBudgetView('main', budget.view())];
    const response = await harness.call('GET', '/streams');
    expect(response.status).toBe(200);
    expect((response.body as { budgets: unknown }).budgets).toEqual([
      {
        connectionId: 'main',
        requestsInWindow: 2,
        limit: 200,
        liveReserve: 7,
        queued: { live: 0, bulk: 0 },
        pausedUntil: null,
      },
    ]);
  });

  it('shows a stream the poll loop holds back (its failure not stored) as waiting for its next try, not due', async () => {
    harness = createAdminHarness();
    const now = harness.clock.now();
    const stored = streamState('main:customer', {
      lastPollAt: now - 60_000,
      nextDueAt: now - 30_000,
      consecutiveFailures: 0,
    });
    await harness.state.saveStream(stored, 0);
    const error =
      'DynamoDB PutItem on table change-bridge failed: IO error: No space left on device';
    harness.deps.heldStreams = () =>
      new Map([['main:customer', { error, failures: 4, retryAt: now + 480_000 }]]);
    const response = await harness.call('GET', '/streams');
    expect(response.status).toBe(200);
    const streams = (response.body as { streams: Record<string, unknown>[] }).streams;
    expect(streams.find((s) => s.id === 'main:customer')).toMatchObject({
      nextDueAt: new Date(now + 480_000).toISOString(),
      consecutiveFailures: 4,
      lastError: error,
      lastPollAt: new Date(now - 60_000).toISOString(),
    });
    // The others show their stored states as before.
    expect(streams.find((s) => s.id === 'main:resource')).toMatchObject({
      consecutiveFailures: 0,
      lastError: null,
    });
  });

  it('lists one connection’s streams and budget with ?connectionId, and refuses a malformed id', async () => {
    harness = createAdminHarness();
    await harness.state.saveStream(streamState('old:export'), 0);
    await harness.state.saveStream(streamState('main-2:customer'), 0);
    await harness.state.saveStream(streamState('main:customer'), 0);
    const budget = (connectionId: string) =>
      toBudgetView(
        connectionId,
        new TokenBudget(
          connectionId,
          { requests: 200, windowMs: 30_000, marginMs: 500 },
          harness.clock,
          new MemoryGrantLedger(),
        ).view(),
      );
    harness.deps.budgets = () => [budget('main'), budget('old')];
    const response = await harness.call('GET', '/streams', { query: { connectionId: 'main' } });
    expect(response.status).toBe(200);
    const body = response.body as {
      streams: { id: string }[];
      budgets: { connectionId: string }[];
    };
    // Configured streams of `main` and its stored one; not `main-2`, whose id shares the prefix.
    expect(body.streams.map((s) => s.id)).toEqual([
      'main:customer',
      'main:resource',
      'main:taxEnvironment',
    ]);
    expect(body.budgets.map((b) => b.connectionId)).toEqual(['main']);
    const old = await harness.call('GET', '/streams', { query: { connectionId: 'old' } });
    expect((old.body as { streams: { id: string }[] }).streams.map((s) => s.id)).toEqual([
      'old:export',
    ]);
    const bad = await harness.call('GET', '/streams', { query: { connectionId: 'a:b' } });
    expect(bad.status).toBe(400);
  });

  it('resets a stream (state, snapshots left to its poller) and answers 404 for an unknown one', async () => {
    harness = createAdminHarness();
    await harness.state.saveStream(streamState('main:customer', { parked: true }), 0);
    await harness.state.putSnapshots('main:customer', [
      { entityId: 'c-1', hash: 'h', record: { Id: 'c-1' }, updatedAt: 1 },
    ]);

    const response = await harness.call(
      'POST',
      `/streams/${encodeURIComponent('main:customer')}/reset`,
    );
    expect(response).toMatchObject({
      status: 200,
      body: { id: 'main:customer', parked: false, watermark: null },
    });
    // A fresh state whose first sync names its created events after the reset.
    expect(await harness.state.getStream('main:customer')).toMatchObject({
      watermark: null,
      parked: false,
      initialSyncDone: false,
      backfill: { kind: 'first-sync', jobId: expect.stringMatching(/^reset_/) },
      // Its poller deletes the snapshots stored before this, before its first sync.
      resetAt: harness.clock.now(),
    });
    expect(await harness.call('POST', '/streams/main:nothing/reset')).toMatchObject({
      status: 404,
    });
  });

  it("ends a backfill job's count of webhooks delivered where a reset of its stream takes over", async () => {
    harness = createAdminHarness();
    const started = await harness.call('POST', '/backfill', { body: { entities: 'customer' } });
    const job = started.body as Job;
    await harness.deliveryCounter.add(
      streamTallies('main:customer', harness.clock.now(), { delivered: 40 }),
    );
    await harness.clock.advance(1_000);
    await harness.call('POST', '/streams/main:customer/reset');
    // The deliveries of the events detected after the reset are not the job's.
    await harness.clock.advance(1_000);
    await harness.deliveryCounter.add(
      streamTallies('main:customer', harness.clock.now(), { delivered: 500 }),
    );
    const view = await harness.call('GET', `/backfill/${job.id}`);
    expect(view.body).toMatchObject({
      webhooksDelivered: 40,
      streams: [{ endedBy: 'superseded' }],
    });
  });

  it('answers a reset of a stream no longer configured with its id, connection and entity type', async () => {
    harness = createAdminHarness();
    await harness.state.saveStream(streamState('chain-eu:customer', { parked: true }), 0);
    const response = await harness.call('POST', '/streams/chain-eu:customer/reset');
    expect(response).toMatchObject({
      status: 200,
      body: {
        id: 'chain-eu:customer',
        connectionId: 'chain-eu',
        entityType: 'customer',
        configured: false,
        watermark: null,
      },
    });
    expect(await harness.state.getStream('chain-eu:customer')).toBeUndefined();
  });
});

describe('admin API: backfill', () => {
  it('gives a synced stream a pass beside its live polls (state and snapshots kept), resets the others, and reports progress', async () => {
    harness = createAdminHarness();
    await harness.state.saveStream(
      streamState('main:customer', {
        watermark: '2026-02-28T00:00:00.000Z',
        initialSyncDone: true,
      }),
      0,
    );
    await harness.state.putSnapshots('main:customer', [
      { entityId: 'c-1', hash: 'h', record: { Id: 'c-1' }, updatedAt: 1 },
    ]);

    const started = await harness.call('POST', '/backfill', {
      body: { entities: 'customer,taxEnvironment', emit: true },
    });
    expect(started.status).toBe(202);
    const job = started.body as Job;
    expect(job).toMatchObject({
      // Of the shape `backfill --follow` takes.
      id: expect.stringMatching(BACKFILL_ID_PATTERN),
      emit: true,
      done: false,
      fraction: 0,
    });
    expect(job.streams.map((s) => s.streamId)).toEqual(['main:customer', 'main:taxEnvironment']);
    // The synced stream keeps its watermark, live state and snapshots; its pass reads the
    // history up to its watermark (what its live polls had read).
    const passEnd = Date.parse('2026-02-28T00:00:00.000Z');
    expect(await harness.state.getStream('main:customer')).toMatchObject({
      watermark: '2026-02-28T00:00:00.000Z',
      initialSyncDone: true,
      backfill: {
        kind: 'pass',
        jobId: job.id,
        emit: true,
        startedAt: Date.parse(job.startedAt),
        endUtc: new Date(passEnd).toISOString(),
        watermark: null,
        doneAt: null,
      },
    });
    expect((await harness.state.getSnapshots('main:customer', ['c-1'])).size).toBe(1);
    // The stream that never synced is reset: its first sync is the backfill.
    expect(await harness.state.getStream('main:taxEnvironment')).toMatchObject({
      watermark: null,
      initialSyncDone: false,
      initialSync: 'emit',
      backfill: { kind: 'first-sync', jobId: job.id },
    });
    expect(await harness.state.getStream('main:resource')).toBeUndefined();

    // The pollers move on: the customer pass halfway through its history, taxEnvironment done.
    const history = harness.settings.windows.historyStartMs;
    const halfway = history + (passEnd - history) / 2;
    const customer = (await harness.state.getStream('main:customer'))!;
    await harness.state.saveStream(
      {
        ...customer,
        backfill: {
          ...(customer.backfill as BackfillPass),
          watermark: new Date(halfway).toISOString(),
        },
      },
      customer.version,
    );
    const tax = (await harness.state.getStream('main:taxEnvironment'))!;
    await harness.state.saveStream(
      { ...tax, watermark: new Date(harness.clock.now()).toISOString() },
      tax.version,
    );

    const progress = await harness.call('GET', `/backfill/${job.id}`);
    expect(progress.status).toBe(200);
    const view = progress.body as Job;
    expect(view.streams[0]).toMatchObject({ streamId: 'main:customer', done: false });
    // Half its range read, but no record yet: how much of its records is read is unknown.
    expect(view.streams[0]!.rangeFraction).toBeCloseTo(0.5, 5);
    expect(view.streams[0]).toMatchObject({ fraction: 0, recordsExpected: null });
    expect(view.streams[1]).toMatchObject({
      streamId: 'main:taxEnvironment',
      done: true,
      fraction: 1,
    });
    expect(view.rangeFraction).toBeCloseTo(0.75, 5);
    expect(view).toMatchObject({ fraction: 0, readFraction: null, etaSeconds: null });
    expect(view.done).toBe(false);
  });

  it('reports records read, events published and webhooks delivered since the start, and the time left', async () => {
    harness = createAdminHarness();
    // Deliveries of events detected before the job are not the job's.
    await harness.deliveryCounter.add(
      streamTallies('main:customer', harness.clock.now() - 1, { delivered: 70 }),
    );
    const started = await harness.call('POST', '/backfill', { body: { entities: 'customer' } });
    const job = started.body as Job;
    expect(job).toMatchObject({
      recordsRead: 0,
      eventsPublished: 0,
      webhooksDelivered: 0,
      elapsedSeconds: 0,
      etaSeconds: null,
    });

    // 30 s later the poller is a quarter through history and the dispatcher has delivered.
    await harness.clock.advance(30_000);
    const history = harness.settings.windows.historyStartMs;
    const quarter = history + (Date.parse(job.startedAt) - history) / 4;
    const state = (await harness.state.getStream('main:customer'))!;
    await harness.state.saveStream(
      {
        ...state,
        watermark: new Date(quarter).toISOString(),
        recordsRead: 4000,
        eventsPublished: 3900,
      },
      state.version,
    );
    await harness.deliveryCounter.add(
      streamTallies('main:customer', harness.clock.now(), { delivered: 3000 }),
    );
    const view = (await harness.call('GET', `/backfill/${job.id}`)).body as Job;
    expect(view).toMatchObject({
      recordsRead: 4000,
      eventsPublished: 3900,
      webhooksDelivered: 3000,
      elapsedSeconds: 30,
      // A first sync's records are unknown until a density between window ends is measured:
      // not the 90 s the quarter of the time range foretold.
      etaSeconds: null,
    });
    expect(view.streams[0]).toMatchObject({
      streamId: 'main:customer',
      recordsRead: 4000,
      eventsPublished: 3900,
      webhooksDelivered: 3000,
    });
  });

  it('without emit, lets the first sync store silently (initialSyncDone false), over every polled stream', async () => {
    harness = createAdminHarness();
    const started = await harness.call('POST', '/backfill');
    expect(started.status).toBe(202);
    expect((started.body as Job).streams).toHaveLength(3);
    const ofMain = await harness.call('POST', '/backfill', {
      body: { connections: 'main', entities: 'customer' },
    });
    expect((ofMain.body as Job).streams.map((s) => s.streamId)).toEqual(['main:customer']);
    expect(await harness.state.getStream('main:resource')).toMatchObject({
      initialSyncDone: false,
    });
  });

  it('answers 400 naming the entity that is not polled, and 404 for an unknown job', async () => {
    harness = createAdminHarness();
    const notPolled = await harness.call('POST', '/backfill', {
      body: { entities: ['customer', 'export'] },
    });
    expect(notPolled).toMatchObject({ status: 400, body: { field: 'entities[1]' } });
    // Named with its connections, the refusal names them: their --entities may be the cause.
    const notByMain = await harness.call('POST', '/backfill', {
      body: { entities: 'export', connections: 'main' },
    });
    expect(notByMain).toMatchObject({
      status: 400,
      body: { field: 'entities[0]', error: expect.stringContaining('is not polled by main') },
    });
    const unknown = await harness.call('POST', '/backfill', { body: { entities: 'guest' } });
    expect(unknown).toMatchObject({ status: 400, body: { field: 'entities[0]' } });
    // Connections: only those with a configured stream (a parked one can be left out).
    const other = await harness.call('POST', '/backfill', { body: { connections: 'main,other' } });
    expect(other).toMatchObject({ status: 400, body: { field: 'connections[1]' } });
    const malformed = await harness.call('POST', '/backfill', { body: { connections: ['a b'] } });
    expect(malformed).toMatchObject({ status: 400, body: { field: 'connections[0]' } });
    const badEmit = await harness.call('POST', '/backfill', { body: { emit: 'yes' } });
    expect(badEmit).toMatchObject({ status: 400, body: { field: 'emit' } });
    expect(await harness.call('GET', '/backfill/bf_none')).toMatchObject({ status: 404 });
  });
});
