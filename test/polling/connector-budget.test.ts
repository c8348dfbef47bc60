import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityEvent } from '../../shared/changes/entity-event-schema.ts';
import { systemClock } from '../../shared/clock.ts';
import {
  BUDGET_MARGIN_MS_DEFAULT,
  sharedBudgetFor,
} from '../../shared/connector/budget/shared-budgets.ts';
import { busiestWindow } from '../../shared/connector/budget/sliding-log.ts';
import {
  type ConnectorClient,
  createConnectorClient,
} from '../../shared/connector/connector-client.ts';
import {
  CONNECTOR_RATE_WINDOW_MS,
  CONNECTOR_REQUESTS_PER_WINDOW,
} from '../../shared/connector/rate-limit.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import type { PollDeps } from '../../shared/polling/poll-context.ts';
import type { PollLoop } from '../../shared/polling/poll-loop-options.ts';
import { startPollLoop } from '../../shared/polling/poll-runner.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import type { EventPublisher } from '../../shared/publish/publisher.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { DynamoDbGrantLedger } from '../../shared/state/dynamodb-grant-ledger.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import {
  type BudgetTurn,
  recordingLedger,
  recordLiveClaims,
  summarizeBudgetTurns,
} from '../support/budget-turn-log.ts';

const TABLE = 'budget-test';
/**
 * Long enough for the sync's bulk takes to fill one 30 s window and run into the next (with
 * the tail, ~4 s), where grants of the first window lapse and a miscounted window lets a burst
 * through: a client counting 200 per 25 s is caught (busiest 201, one 429) as at 40 and 60 s.
 */
const RUN_MS = 32_000;
/**
 * How long the last changes get to be published after the run at most: the wait ends when all
 * are, a second or two on a quiet machine; the rest is for a host starved of CPU.
 */
const TAIL_MS = 15_000;
/** 200 changes in the run, as many latencies as at one every 200 ms for 40 s. */
const CHANGE_EVERY_MS = 160;
const WINDOW_WITH_MARGIN_MS = 30_500;
/** What the two live streams, polled every second, ask of a window: 31 each in 30.5 s. */
const LIVE_REQUESTS_PER_WINDOW = 2 * Math.ceil(WINDOW_WITH_MARGIN_MS / 1_000);

/** Publishes nothing anywhere; remembers when each event was published. */
class TimedPublisher implements EventPublisher {
  readonly published: { type: string; subject: string; at: number }[] = [];
  async publish(events: readonly unknown[]) {
    const at = Date.now();
    for (const event of events as EntityEvent[])
      this.published.push({ type: event.type, subject: event.subject, at });
    return { published: events.length, thinned: 0, failures: [] };
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

describe('one connector budget per AccessToken, live polls first (simulator enforcing 200/30 s)', () => {
  let sim: RunningSimulator;
  let dynamo: LocalDynamoDb;
  const clients: ConnectorClient[] = [];
  const loops: PollLoop[] = [];

  beforeAll(async () => {
    // The 100,000 customers of a large dataset; its other records (30,000 notes and more)
    // only cost generation time: the notes' live stream reads two minutes of history.
    sim = await startSimulator({ seed: 21, size: 'small', customers: 100_000 });
    dynamo = await startLocalDynamoDb();
    await createStateTable(dynamo.client, TABLE);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(loops.map((loop) => loop.stop()));
    await Promise.all(clients.map((client) => client.close()));
    await dynamo?.close();
    await sim?.close();
  });

  it('publishes every live change, begins no sync request while a live one waits, refuses no live request for room, lets a first sync of 100,000 customers fill what the live streams leave, and the server never counts more than 200 in 30 s', async () => {
    // Snapshots in memory: the first sync is then bound by the budget, not by a store sharing
    // this test's one process; the grants live in DynamoDB (dynalite) as in a deployment.
    const store = new MemoryStateStore();
    // Every take of the token's budget, and every live claim on it, in the order they happen:
    // the two clients below share this one budget (same token, limits, clock and ledger).
    const turns: BudgetTurn[] = [];
    const ledger = recordingLedger(new DynamoDbGrantLedger(dynamo.client, TABLE), turns);
    recordLiveClaims(
      sharedBudgetFor(
        sim.tokens.accessToken,
        {
          requests: CONNECTOR_REQUESTS_PER_WINDOW,
          windowMs: CONNECTOR_RATE_WINDOW_MS,
          marginMs: BUDGET_MARGIN_MS_DEFAULT,
        },
        systemClock,
        ledger,
      ),
      turns,
    );
    const publisher = new TimedPublisher();
    const requestTimes: Record<'live' | 'sync', number[]> = { live: [], sync: [] };
    const clientOf = (role: 'live' | 'sync') => {
      const client = createConnectorClient(
        {
          baseUrl: sim.url,
          clientToken: sim.tokens.clientToken,
          accessToken: sim.tokens.accessToken,
          client: `budget test ${role}`,
        },
        { budgetLedger: ledger, onRequest: () => requestTimes[role].push(Date.now()) },
      );
      clients.push(client);
      return client;
    };
    const depsOf = (role: 'live' | 'sync', env: Record<string, string>): PollDeps => {
      const settings = pollSettingsFromEnv({ POLL_INTERVAL: '1s', ...env }, Date.now());
      return {
        store,
        client: clientOf(role),
        publisher,
        clock: systemClock,
        windows: settings.windows,
        pageCount: settings.pageCount,
      };
    };
    const liveEnv = { POLL_ENTITIES: 'customer,accountNote', POLL_HISTORY_START: '120s' };
    const liveDeps = depsOf('live', liveEnv);
    const liveDefinitions = streamDefinitions(
      'live',
      pollSettingsFromEnv({ POLL_INTERVAL: '1s', ...liveEnv }, Date.now()),
    );
    // A second connection with the same AccessToken runs the first sync of every customer.
    const syncEnv = { POLL_ENTITIES: 'customer' };
    // Pages of 100: the simulator's cost per page stays small, so the sync is bound by the budget.
    const syncDeps = { ...depsOf('sync', syncEnv), pageCount: 100 };
    const syncDefinitions = streamDefinitions(
      'sync',
      pollSettingsFromEnv({ POLL_INTERVAL: '1s', ...syncEnv }, Date.now()),
    );

    loops.push(
      startPollLoop({ definitions: liveDefinitions, deps: liveDeps, owner: 'live', tickMs: 100 }),
    );
    // The live streams' own first sync is one short window; then they poll live.
    const liveReady = Date.now() + 20_000;
    while (Date.now() < liveReady) {
      const states = await store.listStreams();
      if (states.filter((s) => s.streamId.startsWith('live:') && s.initialSyncDone).length === 2)
        break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const syncStartedAt = Date.now();
    loops.push(
      startPollLoop({ definitions: syncDefinitions, deps: syncDeps, owner: 'sync', tickMs: 100 }),
    );

    // A customer or an account note changes every 160 ms for 32 s.
    const model = sim.controls.model;
    const active = <T extends { Id: string; IsActive: boolean }>(
      entries: Iterable<{ record: T }>,
    ) =>
      [...entries]
        .filter((entry) => entry.record.IsActive)
        .slice(0, 500)
        .map((entry) => entry.record.Id);
    const customers = active(model.customers.all());
    const notes = active(model.accountNotes.all());
    const changes: { type: string; subject: string; at: number }[] = [];
    for (let i = 0; Date.now() - syncStartedAt < RUN_MS; i++) {
      const at = Date.now();
      if (i % 2 === 0) {
        const id = customers[(i / 2) % customers.length]!;
        model.update(model.customers, 'customer', id, { Notes: `budget test ${i}` });
        changes.push({ type: 'customer.updated', subject: id, at });
      } else {
        const id = notes[((i - 1) / 2) % notes.length]!;
        model.update(model.accountNotes, 'accountNote', id, { Content: `budget test ${i}` });
        changes.push({ type: 'accountNote.updated', subject: id, at });
      }
      await new Promise((resolve) => setTimeout(resolve, CHANGE_EVERY_MS - (Date.now() - at)));
    }
    const publishedOf = (change: (typeof changes)[number]) =>
      publisher.published.find(
        // A record older than the live streams' short first sync is first seen as created.
        (e) =>
          e.type.split('.')[0] === change.type.split('.')[0] &&
          e.subject === change.subject &&
          e.at >= change.at,
      );
    // Until every change is published, or TAIL_MS at most: a latency is measured when its
    // event is published, so waiting on after the last one would change none.
    const tailEnd = Date.now() + TAIL_MS;
    while (Date.now() < tailEnd && changes.some((change) => !publishedOf(change)))
      await new Promise((resolve) => setTimeout(resolve, 50));
    const runEnd = Date.now();

    const latencies: number[] = [];
    const unpublished: string[] = [];
    for (const change of changes) {
      const event = publishedOf(change);
      if (event) latencies.push(event.at - change.at);
      else unpublished.push(`${change.type} ${change.subject}`);
    }
    const log = sim.controls.requestLog();
    const arrivals = log.map((entry) => Date.parse(entry.time));
    const throttled = log.filter((entry) => entry.status === 429).length;
    const busiest = busiestWindow(arrivals, 30_000);
    const syncStates = await store.listStreams();
    const syncDone = syncStates.find((s) => s.streamId === 'sync:customer')?.initialSyncDone;
    const syncEnd = syncDone
      ? Math.max(...requestTimes.sync.filter((t) => t >= syncStartedAt))
      : runEnd;
    const span = syncEnd - syncStartedAt;
    const liveInSpan = requestTimes.live.filter((t) => t >= syncStartedAt && t <= syncEnd).length;
    const syncInSpan = requestTimes.sync.filter((t) => t >= syncStartedAt && t <= syncEnd).length;
    const budgetInSpan = (200 * span) / WINDOW_WITH_MARGIN_MS;
    const share = syncInSpan / (budgetInSpan - liveInSpan);
    const budgetTurns = summarizeBudgetTurns(turns);
    console.log(
      `budget: ${changes.length} live changes, p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, unpublished ${unpublished.length}; busiest 30 s ${busiest}, 429s ${throttled}; first sync ${syncDone ? 'done' : 'not done'} in ${(span / 1000).toFixed(1)} s with ${syncInSpan} requests, live ${liveInSpan}, share of what live left ${share.toFixed(2)}; budget: ${budgetTurns.liveClaims} live claims, ${budgetTurns.liveRefused} refused, ${budgetTurns.syncGrants} sync grants, ${budgetTurns.syncTakesBesideWaitingLive} begun while a live claim waited, least capacity ${budgetTurns.leastSyncCapacity}`,
    );

    expect(unpublished).toEqual([]);
    // Live polls come first, whatever the host's speed: a live claim is served at the budget's
    // next turn (a sync take already at the ledger finishes first), and the live reserve keeps
    // a slot free for it, so the ledger never refuses it. The latencies above are information;
    // bench/latency.ts measures them against the 2 s target.
    expect(budgetTurns.liveClaims).toBeGreaterThan(0);
    expect(budgetTurns.syncGrants).toBeGreaterThan(0);
    expect(budgetTurns.syncTakesBesideWaitingLive).toBe(0);
    expect(budgetTurns.liveRefused).toBe(0);
    expect(busiest).toBeLessThanOrEqual(200);
    expect(throttled).toBe(0);
    // The sync takes what the live streams leave: each of its takes may fill the window to the
    // limit less what they ask at most. Its share of that over the run (printed) also needs the
    // CPU to read 100 records a request: beside two busy loops it fell to 0.68.
    expect(budgetTurns.leastSyncCapacity).toBeGreaterThanOrEqual(
      CONNECTOR_REQUESTS_PER_WINDOW - LIVE_REQUESTS_PER_WINDOW,
    );
  }, 150_000);
});
