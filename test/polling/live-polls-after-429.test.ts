import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { PACE_AFTER_THROTTLE } from '../../shared/connector/budget/budget-pacing.ts';
import { MemoryGrantLedger } from '../../shared/connector/budget/grant-ledger.ts';
import {
  BUDGET_MARGIN_MS_DEFAULT,
  sharedBudgetFor,
} from '../../shared/connector/budget/shared-budgets.ts';
import { busiestWindow } from '../../shared/connector/budget/sliding-log.ts';
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
import {
  type BudgetTurn,
  recordingLedger,
  recordLiveClaims,
  summarizeBudgetTurns,
} from '../support/budget-turn-log.ts';

const LIMIT = 200;
const WINDOW_MS = 30_000;
const LIVE_ENTITIES = ['customer', 'accountNote'];
/** How long the live polls are watched after the Retry-After ends. */
const WATCHED_MS = 8_000;
/**
 * The sync's page size: what it costs the server is its requests, whatever a page holds, so small
 * pages fill the window as large ones do, for a tenth of the records to serve, parse and store.
 */
const SYNC_PAGE_COUNT = 10;
/**
 * More customers than the sync can read before the test ends: it runs through at most the 45 s
 * wait for the window to fill and the 9 s of the Retry-After and the watch, in which the server's
 * 200 requests in 30 s allow it fewer than 400 pages, 4,000 customers; so its first sync is still
 * running when the live polls are watched, as the test asserts.
 */
const CUSTOMERS = 10_000;

/** Publishes nothing anywhere. */
const publisher: EventPublisher = {
  publish: async (events) => ({ published: events.length, thinned: 0, failures: [] }),
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number) {
  for (let waited = 0; waited < timeoutMs; waited += 100) {
    if (await condition()) return;
    await sleep(100);
  }
  throw new Error(`not reached within ${timeoutMs} ms`);
}

describe('live polls after a 429 (simulator enforcing 200/30 s)', () => {
  let sim: RunningSimulator;
  const clients: ConnectorClient[] = [];
  const loops: PollLoop[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ seed: 11, size: 'small', customers: CUSTOMERS });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(loops.map((loop) => loop.stop()));
    await Promise.all(clients.map((client) => client.close()));
    await sim?.close();
  });

  it('go on as soon as the Retry-After ends while a first sync fills the window, and the server never counts more than 200 in 30 s', async () => {
    const store = new MemoryStateStore();
    // One ledger and one clock: both connections share the token's one budget in this process,
    // whose takes and live claims are recorded in order.
    const turns: BudgetTurn[] = [];
    const ledger = recordingLedger(new MemoryGrantLedger(), turns);
    recordLiveClaims(
      sharedBudgetFor(
        sim.tokens.accessToken,
        { requests: LIMIT, windowMs: WINDOW_MS, marginMs: BUDGET_MARGIN_MS_DEFAULT },
        systemClock,
        ledger,
      ),
      turns,
    );
    const liveArrivals = new Map<string, number[]>();
    const clientOf = (role: 'live' | 'sync') => {
      const client = createConnectorClient(
        {
          baseUrl: sim.url,
          clientToken: sim.tokens.clientToken,
          accessToken: sim.tokens.accessToken,
          client: `429 test ${role}`,
        },
        {
          budgetLedger: ledger,
          onRequest: (operation) => {
            if (role !== 'live') return;
            const times = liveArrivals.get(operation) ?? [];
            times.push(Date.now());
            liveArrivals.set(operation, times);
          },
        },
      );
      clients.push(client);
      return client;
    };
    const settingsOf = (env: Record<string, string>) =>
      pollSettingsFromEnv({ POLL_INTERVAL: '1s', ...env }, Date.now());
    const depsOf = (role: 'live' | 'sync', pageCount: number): PollDeps => {
      const settings = settingsOf({});
      return {
        store,
        client: clientOf(role),
        publisher,
        clock: systemClock,
        windows: settings.windows,
        pageCount,
      };
    };
    const liveEnv = { POLL_ENTITIES: LIVE_ENTITIES.join(','), POLL_HISTORY_START: '60s' };
    loops.push(
      startPollLoop({
        definitions: streamDefinitions('live', settingsOf(liveEnv)),
        deps: depsOf('live', 1_000),
        owner: 'live',
        tickMs: 50,
      }),
    );
    await waitFor(async () => {
      const states = await store.listStreams();
      return states.filter((s) => s.initialSyncDone).length === LIVE_ENTITIES.length;
    }, 20_000);
    // A second connection of the same token reads every customer, SYNC_PAGE_COUNT a page (bulk):
    // it fills what the live polls leave of the window, up to the server's limit.
    const syncDeps = depsOf('sync', SYNC_PAGE_COUNT);
    loops.push(
      startPollLoop({
        definitions: streamDefinitions('sync', settingsOf({ POLL_ENTITIES: 'customer' })),
        deps: syncDeps,
        owner: 'sync',
        tickMs: 50,
      }),
    );
    const lowered = Math.floor(LIMIT * PACE_AFTER_THROTTLE);
    await waitFor(
      () => (syncDeps.client.budgetView()?.requestsInWindow ?? 0) > lowered + 10,
      45_000,
    );

    // The next request is answered 429 with Retry-After: 1.
    sim.controls.setFaults({ script: ['rate-limit'], retryAfterSeconds: 1 });
    await waitFor(() => sim.controls.requestLog().some((entry) => entry.status === 429), 5_000);
    const throttledAt = Date.parse(
      sim.controls.requestLog().find((entry) => entry.status === 429)!.time,
    );
    const resumesAt = throttledAt + 1_000;
    await sleep(resumesAt + WATCHED_MS - Date.now());
    const watchedEnd = Date.now();
    const syncState = await store.getStream('sync:customer');

    // The sync still ran: its requests kept the window full...
    expect(syncState?.initialSyncDone).not.toBe(true);
    // ...and each live stream polled on once the Retry-After ended, served first at each turn
    // and never refused for room: the lowered pace holds bulk work back, not live polls. Before,
    // the window holding more than the lowered limit (150) refused every claim, live ones
    // included, and the customers' stream sent none for 7.6 s of the 8 s watched.
    const budgetTurns = summarizeBudgetTurns(turns);
    console.log(
      `after a 429: ${budgetTurns.liveClaims} live claims, ${budgetTurns.liveRefused} refused for room, ${budgetTurns.syncGrants} sync grants, ${budgetTurns.syncTakesBesideWaitingLive} begun while a live claim waited; live requests after the Retry-After: ${[...liveArrivals].map(([operation, times]) => `${operation} ${times.filter((at) => at > resumesAt && at <= watchedEnd).length}`).join(', ')}`,
    );
    expect(budgetTurns.liveRefused).toBe(0);
    expect(budgetTurns.syncTakesBesideWaitingLive).toBe(0);
    expect(budgetTurns.syncGrants).toBeGreaterThan(0);
    expect([...liveArrivals.keys()]).toHaveLength(LIVE_ENTITIES.length);
    for (const [operation, times] of liveArrivals)
      expect(times.filter((at) => at > resumesAt).length, operation).toBeGreaterThan(0);
    // The server's limit held all along: its one 429 is the injected one.
    const log = sim.controls.requestLog();
    expect(
      busiestWindow(
        log.map((entry) => Date.parse(entry.time)),
        WINDOW_MS,
      ),
    ).toBeLessThanOrEqual(LIMIT);
    expect(log.filter((entry) => entry.status === 429)).toHaveLength(1);
  }, 120_000);
});
