import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  type ConnectionAdminDeps,
  ConnectionBusyError,
  REMOVE_JOB_WAIT_MS,
  removeConnection,
} from '../../shared/connections/connection-admin.ts';
import { streamsOfConnection } from '../../shared/connections/connection-streams.ts';
import { watchConnection } from '../../shared/connections/connection-watch.ts';
import { LocalKeyFileProvider } from '../../shared/connections/local-key-file.ts';
import { MemoryConnectionStore } from '../../shared/connections/memory-connection-store.ts';
import { createTokenCipher } from '../../shared/connections/token-cipher.ts';
import {
  type ConnectorClient,
  createConnectorClient,
} from '../../shared/connector/connector-client.ts';
import { createUndiciTransport } from '../../shared/connector/http-transport.ts';
import { connectionLeaseId, pollConnectionStreams } from '../../shared/polling/poll-connection.ts';
import { pollSettingsFromEnv } from '../../shared/polling/poll-settings.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { CollectingPublisher, POLL_TEST_START_MS } from '../polling/poll-harness.ts';
import { holdSnapshotWrites } from '../support/held-snapshot-writes.ts';

/*
 * In AWS the admin API's `connections remove` cannot reach a poller's job: the job watches its
 * connection (every 5 s) and stops once it is gone. A job storing a page when the removal runs
 * must not leave that page's snapshots, or its stream's state, after the removal answered that
 * it deleted them (README: only `--keep-state` keeps state for a re-added id).
 */

let sim: RunningSimulator;
let client: ConnectorClient;
const clock = new ManualClock(POLL_TEST_START_MS);

beforeAll(async () => {
  sim = await startSimulator({ seed: 9, size: 'small', clock, rateLimit: false });
  client = createConnectorClient(
    {
      baseUrl: sim.url,
      clientToken: sim.tokens.clientToken,
      accessToken: sim.tokens.accessToken,
      client: 'test',
      rateLimit: false,
    },
    { clock },
  );
});
afterAll(async () => {
  await client?.close();
  await sim?.close();
});

describe('an AWS poll job storing a page when its connection is removed', () => {
  it('leaves no stream state or snapshot of the connection once the removal answered', async () => {
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'customer', POLL_INTERVAL: '1m', INITIAL_SYNC: 'baseline' },
      POLL_TEST_START_MS,
    );
    const state = new MemoryStateStore();
    const connections = new MemoryConnectionStore();
    const cipher = createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 8)));
    await connections.create({
      id: 'hotel-1',
      enabled: true,
      createdAt: new Date(clock.now()).toISOString(),
      accessToken: await cipher.seal('hotel-1', sim.tokens.accessToken),
      entities: ['customer'],
    });
    const stored = (await connections.get('hotel-1'))!;
    const definitions = streamsOfConnection(stored, settings);
    // The job's first page blocks in its snapshot write until released.
    const held = holdSnapshotWrites(state);
    const watch = watchConnection(connections, 'hotel-1', stored.createdAt, clock);
    let jobDone = false;
    const job = pollConnectionStreams(
      definitions.map((d) => d.streamId),
      definitions,
      {
        signal: watch.signal,
        store: state,
        client,
        publisher: new CollectingPublisher(),
        clock,
        windows: settings.windows,
        pageCount: settings.pageCount,
      },
      'job-1',
    ).finally(() => {
      jobDone = true;
      watch.stop();
    });
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    while (!held.isStoring()) await turn();

    const admin: ConnectionAdminDeps = { store: connections, cipher, state, clock, configured: [] };
    let answered = false;
    const removal = removeConnection('hotel-1', { keepState: false }, admin).finally(() => {
      answered = true;
    });
    // The job's write goes on once the removal answered, or once the job's watch saw the
    // removal (a removal that waits for the job); time moves a second at a time meanwhile.
    for (let second = 0; second < 120 && !(answered && jobDone); second++) {
      for (let i = 0; i < 20; i++) await turn();
      if (answered || watch.signal.aborted) held.release();
      await clock.advance(1000);
    }
    held.release();
    expect((await removal).removed).toBe(true);
    await job;

    expect(await connections.get('hotel-1')).toBeUndefined();
    expect(await state.listStreams({ connectionId: 'hotel-1' })).toEqual([]);
    const left = [];
    for await (const page of state.scanSnapshots('hotel-1:customer')) left.push(...page);
    expect(left).toHaveLength(0);
  });

  it('answers busy, with the connection disabled and its state kept, while a job it cannot stop holds the lease', async () => {
    const state = new MemoryStateStore();
    const connections = new MemoryConnectionStore();
    const cipher = createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 8)));
    await connections.create({
      id: 'hotel-2',
      enabled: true,
      createdAt: new Date(clock.now()).toISOString(),
      accessToken: await cipher.seal('hotel-2', sim.tokens.accessToken),
    });
    const [definition] = streamsOfConnection(
      (await connections.get('hotel-2'))!,
      pollSettingsFromEnv({ POLL_ENTITIES: 'customer' }, clock.now()),
    );
    await state.saveStream(initialStreamState(definition!, clock.now()), 0);
    // A job killed at its timeout: its lease stays until it expires.
    await state.acquireLease(connectionLeaseId('hotel-2'), 'killed-job', 10 * 60_000, clock.now());
    const admin: ConnectionAdminDeps = { store: connections, cipher, state, clock, configured: [] };
    let outcome: unknown;
    const removal = removeConnection('hotel-2', { keepState: false }, admin).then(
      () => {
        outcome = 'removed';
      },
      (error: unknown) => {
        outcome = error;
      },
    );
    for (let waited = 0; waited <= REMOVE_JOB_WAIT_MS && outcome === undefined; waited += 500)
      await clock.advance(500);
    await removal;
    expect(outcome).toBeInstanceOf(ConnectionBusyError);
    expect((await connections.get('hotel-2'))?.enabled).toBe(false);
    expect(await state.listStreams({ connectionId: 'hotel-2' })).toHaveLength(1);
  });

  it('remove --keep-state answers once the job stopped: no request with the old token after it (token rotation)', async () => {
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'customer,resource', POLL_INTERVAL: '1m', INITIAL_SYNC: 'baseline' },
      POLL_TEST_START_MS,
    );
    const state = new MemoryStateStore();
    const connections = new MemoryConnectionStore();
    const cipher = createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 8)));
    await connections.create({
      id: 'hotel-3',
      enabled: true,
      createdAt: new Date(clock.now()).toISOString(),
      accessToken: await cipher.seal('hotel-3', sim.tokens.accessToken),
      entities: ['customer', 'resource'],
    });
    const stored = (await connections.get('hotel-3'))!;
    const definitions = streamsOfConnection(stored, settings);
    // The old token's requests, counted once the removal answered.
    let answered = false;
    let requestsAfterAnswer = 0;
    const transport = createUndiciTransport();
    const oldClient = createConnectorClient(
      {
        baseUrl: sim.url,
        clientToken: sim.tokens.clientToken,
        accessToken: sim.tokens.accessToken,
        client: 'test',
        rateLimit: false,
      },
      {
        clock,
        transport: {
          postJson: (url, body, options) => {
            if (answered) requestsAfterAnswer += 1;
            return transport.postJson(url, body, options);
          },
          close: () => transport.close(),
        },
      },
    );
    // The job's first stream blocks in its snapshot write until released.
    const held = holdSnapshotWrites(state);
    const watch = watchConnection(connections, 'hotel-3', stored.createdAt, clock);
    let jobDone = false;
    const job = pollConnectionStreams(
      definitions.map((d) => d.streamId),
      definitions,
      {
        signal: watch.signal,
        store: state,
        client: oldClient,
        publisher: new CollectingPublisher(),
        clock,
        windows: settings.windows,
        pageCount: settings.pageCount,
      },
      'job-3',
    ).finally(() => {
      jobDone = true;
      watch.stop();
    });
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    while (!held.isStoring()) await turn();

    const admin: ConnectionAdminDeps = { store: connections, cipher, state, clock, configured: [] };
    const removal = removeConnection('hotel-3', { keepState: true }, admin).finally(() => {
      answered = true;
    });
    for (let second = 0; second < 120 && !(answered && jobDone); second++) {
      for (let i = 0; i < 20; i++) await turn();
      if (answered || watch.signal.aborted) held.release();
      await clock.advance(1000);
    }
    held.release();
    expect((await removal).removed).toBe(true);
    await job;
    await oldClient.close();
    expect(requestsAfterAnswer).toBe(0);
  });
});
