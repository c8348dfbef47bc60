import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Clock, systemClock } from '../../shared/clock.ts';
import { MemoryGrantLedger } from '../../shared/connector/budget/grant-ledger.ts';
import { LIVE_RESERVE_CAP_SHARE } from '../../shared/connector/budget/live-reserve.ts';
import {
  type ConnectorClient,
  createConnectorClient,
} from '../../shared/connector/connector-client.ts';
import type { PollDeps } from '../../shared/polling/poll-context.ts';
import type { PollLoop } from '../../shared/polling/poll-loop-options.ts';
import { startPollLoop } from '../../shared/polling/poll-runner.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import type { EventPublisher } from '../../shared/publish/publisher.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';

/**
 * A budget small enough to show in seconds what the soak showed over 30 s: 40 requests per 8 s.
 * Five live streams polled every second ask 5 × 8 = 40 a window, above the 32 they may take
 * while bulk work runs, as the soak's eleven streams polled every 2 s ask 176 of 200.
 */
const RATE = { requests: 40, windowMs: 8_000 };
const LIVE_ENTITIES = 'accountNote,resource,paymentRequest,accountingCategory,billingAutomation';
const LIVE_STREAMS = 5;
/** How long the restarted process runs beside the first sync. */
const RESTARTED_MS = 12_000;

/** Publishes nothing anywhere. */
const publisher: EventPublisher = {
  publish: async (events) => ({ published: events.length, thinned: 0, failures: [] }),
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('live polls of a restarted process beside a first sync (simulator, a small budget)', () => {
  let sim: RunningSimulator;
  const clients: ConnectorClient[] = [];
  const loops: PollLoop[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ seed: 7, size: 'small', customers: 5_000 });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(loops.map((loop) => loop.stop()));
    await Promise.all(clients.map((client) => client.close()));
    await sim?.close();
  });

  it('keeps every live stream polling while the sync’s requests wait for slots the window does not have', async () => {
    const store = new MemoryStateStore();
    // The ledger outlives a process, as the state table does; each process has its own budget
    // (a clock of its own gives it one), which records its live reserve there.
    const ledger = new MemoryGrantLedger();
    const processClock = (): Clock => ({ now: systemClock.now, sleep: systemClock.sleep });
    /** A client on `clock`'s budget of {@link RATE}, or unlimited (the setup's first syncs). */
    const clientOn = (clock: Clock | undefined) => {
      const client = createConnectorClient(
        {
          baseUrl: sim.url,
          clientToken: sim.tokens.clientToken,
          accessToken: sim.tokens.accessToken,
          client: 'refused bulk test',
          rateLimit: clock ? RATE : false,
        },
        { ...(clock ? { clock } : {}), budgetLedger: ledger, budgetMarginMs: 0 },
      );
      clients.push(client);
      return client;
    };
    const definitionsOf = (connectionId: string, env: Record<string, string>) =>
      streamDefinitions(
        connectionId,
        pollSettingsFromEnv({ POLL_INTERVAL: '1s', ...env }, Date.now()),
      );
    const depsOf = (client: ConnectorClient): PollDeps => {
      const settings = pollSettingsFromEnv({ POLL_INTERVAL: '1s' }, Date.now());
      return {
        store,
        client,
        publisher,
        clock: systemClock,
        windows: settings.windows,
        pageCount: 100,
      };
    };
    const live = definitionsOf('live', { POLL_ENTITIES: LIVE_ENTITIES, POLL_HISTORY_START: '60s' });
    expect(live).toHaveLength(LIVE_STREAMS);

    // The live streams' short first syncs, outside the budget (setup)...
    const setup = startPollLoop({
      definitions: live,
      deps: depsOf(clientOn(undefined)),
      owner: 'setup',
      tickMs: 50,
    });
    loops.push(setup);
    const synced = async () => {
      for (let waited = 0; waited < 30_000; waited += 100) {
        const states = await store.listStreams();
        if (states.filter((s) => s.initialSyncDone).length === LIVE_STREAMS) return;
        await sleep(100);
      }
      throw new Error('the live streams did not finish their first syncs');
    };
    await synced();
    await setup.stop();
    // ...then the process that is killed polls them live for a window.
    const first = startPollLoop({
      definitions: live,
      deps: depsOf(clientOn(processClock())),
      owner: 'first',
      tickMs: 50,
    });
    loops.push(first);
    await sleep(RATE.windowMs);
    await first.stop();

    // Started again at once, with a connection whose first sync (bulk) reads 5,000 customers
    // 100 a page: its requests find the window full of the killed process's live polls, and
    // both processes' live reserves (this one's unused yet) keep them waiting for most of it.
    const polledAt: number[] = [];
    const restartedClient = clientOn(processClock());
    const sync = definitionsOf('sync', { POLL_ENTITIES: 'customer' });
    const restarted = startPollLoop({
      definitions: [...live, ...sync],
      deps: depsOf(restartedClient),
      owner: 'restarted',
      tickMs: 50,
      onOutcome: (outcome) => {
        if (outcome.kind === 'polled' && outcome.streamId.startsWith('live:'))
          polledAt.push(Date.now());
      },
    });
    loops.push(restarted);
    const restartedAt = Date.now();
    await sleep(RESTARTED_MS);
    const stoppedAt = Date.now();
    const syncState = await store.getStream('sync:customer');
    await restarted.stop();

    // The sync was still running, its requests waiting for slots...
    expect(syncState?.initialSyncDone).not.toBe(true);
    // ...and the live streams polled all along at the live pace: four fifths of the budget
    // while bulk work runs, 32 polls in 8 s, one every 250 ms (49 in the 12 s, none more than
    // 0.5 s apart). Before, a sync request refused by the ledger slept until its own slot came
    // and held every live claim queued meanwhile: 11 to 16 polls, and 5 to 6 s without one.
    const livePace = (RATE.requests * LIVE_RESERVE_CAP_SHARE * RESTARTED_MS) / RATE.windowMs;
    const spans = [restartedAt, ...polledAt, stoppedAt]
      .slice(1)
      .map((at, i, all) => at - (i === 0 ? restartedAt : all[i - 1]!));
    expect(polledAt.length).toBeGreaterThan(livePace / 2);
    expect(Math.max(...spans)).toBeLessThan(RATE.windowMs / 3);
  }, 90_000);
});
