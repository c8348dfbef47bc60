import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  type ConnectionAdminDeps,
  removeConnection,
  setConnectionEnabled,
} from '../../shared/connections/connection-admin.ts';
import { streamsOfConnection } from '../../shared/connections/connection-streams.ts';
import {
  CONNECTION_WATCH_MS,
  ConnectionGoneError,
  watchConnection,
} from '../../shared/connections/connection-watch.ts';
import { LocalKeyFileProvider } from '../../shared/connections/local-key-file.ts';
import { MemoryConnectionStore } from '../../shared/connections/memory-connection-store.ts';
import { createTokenCipher } from '../../shared/connections/token-cipher.ts';
import {
  type ConnectorClient,
  createConnectorClient,
} from '../../shared/connector/connector-client.ts';
import { startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { pollConnectionStreams } from '../../shared/polling/poll-connection.ts';
import type { PollSettings } from '../../shared/polling/poll-settings.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import type { StateStore } from '../../shared/state/state-store.ts';
import { CollectingPublisher, POLL_TEST_START_MS } from '../polling/poll-harness.ts';

const TABLE = 'connection-watch';

let sim: RunningSimulator;
let dynamo: Awaited<ReturnType<typeof startLocalDynamoDb>>;
let client: ConnectorClient;
const clock = new ManualClock(POLL_TEST_START_MS);

beforeAll(async () => {
  sim = await startSimulator({ seed: 7, size: 'small', clock, rateLimit: false });
  dynamo = await startLocalDynamoDb();
  await createStateTable(dynamo.client, TABLE);
  client = createConnectorClient(
    {
      baseUrl: sim.url,
      clientToken: sim.tokens.clientToken,
      accessToken: sim.tokens.accessToken,
      client: 'review',
      rateLimit: false,
    },
    { clock },
  );
});
afterAll(async () => {
  await client?.close();
  await sim?.close();
  await dynamo?.close();
});

const settings: PollSettings = {
  intervalMs: 60_000,
  entities: ['customer', 'resource'],
  initialSync: 'baseline',
  windows: {
    overlapMs: 2000,
    settleLagMs: 0,
    historyStartMs: Date.UTC(2020, 0, 1),
    minWindowMs: 0,
  },
  pageCount: 1000,
  budgetMarginMs: 500,
};

/** Lets the watch's next re-read (one interval on) run to its end. */
async function watchReads(): Promise<void> {
  await clock.advance(CONNECTION_WATCH_MS);
  await new Promise((resolve) => setImmediate(resolve));
}

const watchCipher = createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 6)));

describe('watching a stored connection while its job runs', () => {
  async function registered(store: MemoryConnectionStore, id: string) {
    await store.create({
      id,
      enabled: true,
      createdAt: new Date(clock.now()).toISOString(),
      accessToken: await watchCipher.seal(id, 'token'),
    });
    return (await store.get(id))!.createdAt;
  }

  it('aborts once the connection is disabled, removed, or removed and added again', async () => {
    const cases: [string, (store: MemoryConnectionStore, id: string) => Promise<unknown>][] = [
      ['disabled', (store, id) => store.setEnabled(id, false)],
      ['removed', (store, id) => store.remove(id)],
      [
        're-added',
        async (store, id) => {
          await store.remove(id);
          await clock.advance(1000);
          await registered(store, id);
        },
      ],
    ];
    for (const [change, apply] of cases) {
      const store = new MemoryConnectionStore();
      const watch = watchConnection(store, 'hotel-9', await registered(store, 'hotel-9'), clock);
      await watchReads();
      expect(watch.signal.aborted, `${change}: unchanged`).toBe(false);
      await apply(store, 'hotel-9');
      await watchReads();
      expect(watch.signal.aborted, change).toBe(true);
      expect(watch.signal.reason).toBeInstanceOf(ConnectionGoneError);
    }
  });

  it('takes a failed read for no change, and reads nothing once stopped', async () => {
    const store = new MemoryConnectionStore();
    const createdAt = await registered(store, 'hotel-9');
    let reads = 0;
    let failing = true;
    const flaky = {
      get: async (id: string) => {
        reads += 1;
        if (failing) throw new Error('throttled');
        return store.get(id);
      },
    };
    const watch = watchConnection(flaky, 'hotel-9', createdAt, clock);
    await watchReads();
    expect(watch.signal.aborted).toBe(false);
    failing = false;
    await watchReads();
    expect(reads).toBe(2);
    watch.stop();
    await watchReads();
    expect(reads).toBe(2);
    expect(watch.signal.aborted).toBe(false);
  });
});

/**
 * An AWS poll job of stored connection `id` (two streams) under a watch of its registration;
 * `change` runs (with the watch's next re-read after it) when the job reaches the second
 * stream. The job's outcomes, the connection's id of its second stream and the stores.
 */
async function jobChangedMidway(
  id: string,
  change: (admin: ConnectionAdminDeps) => Promise<unknown>,
) {
  const state = new DynamoDbStateStore({ client: dynamo.client, tableName: TABLE, clock });
  const connections = new MemoryConnectionStore();
  const cipher = createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 4)));
  await connections.create({
    id,
    enabled: true,
    createdAt: new Date(clock.now()).toISOString(),
    accessToken: await cipher.seal(id, sim.tokens.accessToken),
    entities: ['customer', 'resource'],
  });
  const stored = (await connections.get(id))!;
  const definitions = streamsOfConnection(stored, settings);
  const [first, second] = definitions.map((d) => d.streamId);
  const admin: ConnectionAdminDeps = { store: connections, cipher, state, clock, configured: [] };
  // The change runs beside the job (a removal waits for the job to stop before it deletes).
  let changing: Promise<unknown> | undefined;
  let settled = false;
  const observed = new Proxy(state, {
    get(target, property: keyof StateStore) {
      const value = target[property];
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (property === 'getStream' && args[0] === second && changing === undefined) {
          changing = change(admin).finally(() => {
            settled = true;
          });
          await watchReads();
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as StateStore;
  const watch = watchConnection(connections, id, stored.createdAt, clock);
  const { outcomes } = await pollConnectionStreams(
    [first!, second!],
    definitions,
    {
      signal: watch.signal,
      store: observed,
      client,
      publisher: new CollectingPublisher(),
      clock,
      windows: settings.windows,
      pageCount: settings.pageCount,
    },
    `job-${id}`,
  );
  watch.stop();
  while (!settled) await clock.advance(500);
  const changed = (await changing) ?? true;
  return { outcomes, second: second!, changed, state, connections };
}

describe('an AWS poll job of a connection disabled or removed while it runs', () => {
  it('a connection removed while its poll job is on its first stream gets no stream polled or stored after the removal', async () => {
    // The admin runs `connections remove hotel-1` while the job polls its first stream: the
    // removal is done by the time the job reads the second stream.
    const { outcomes, second, changed, state, connections } = await jobChangedMidway(
      'hotel-1',
      (admin) => removeConnection('hotel-1', { keepState: false }, admin),
    );
    expect((changed as { removed: boolean }).removed).toBe(true);
    expect(await connections.get('hotel-1')).toBeUndefined();
    // No state of the removed connection comes back after `remove` answered that it deleted it...
    expect((await state.listStreams({ connectionId: 'hotel-1' })).map((s) => s.streamId)).toEqual(
      [],
    );
    // ...and its second stream is not polled with the removed connection's token.
    expect(outcomes.find((o) => o.streamId === second)?.kind).not.toBe('polled');
  });

  it('a connection disabled while its poll job is on its first stream has no further stream polled by that job', async () => {
    const { outcomes, second, changed } = await jobChangedMidway('hotel-2', (admin) =>
      setConnectionEnabled('hotel-2', false, admin),
    );
    expect(changed).toBeTruthy();
    // README: `disable` "stops its polls at once": the job does not go on to the next stream.
    expect(outcomes.find((o) => o.streamId === second)?.kind).not.toBe('polled');
  });
});
