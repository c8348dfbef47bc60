import type { EntityEvent } from '../../shared/changes/entity-event-schema.ts';
import { ENTITY_TYPES } from '../../shared/changes/entity-types.ts';
import { ManualClock } from '../../shared/clock.ts';
import {
  type ConnectorClient,
  createConnectorClient,
} from '../../shared/connector/connector-client.ts';
import { startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { OverlapMemory } from '../../shared/polling/overlap-memory.ts';
import type {
  PollDeps,
  PollObserver,
  StreamDefinition,
} from '../../shared/polling/poll-context.ts';
import { pollDueStreams } from '../../shared/polling/poll-due-streams.ts';
import {
  type PollSettings,
  pollSettingsFromEnv,
  streamDefinitions,
} from '../../shared/polling/poll-settings.ts';
import { type PollOutcome, pollStream } from '../../shared/polling/poll-stream.ts';
import type { EventPublisher } from '../../shared/publish/publisher.ts';
import type { DatasetSize } from '../../shared/simulator/generate.ts';
import {
  type RunningSimulator,
  type SimulatorOptions,
  startSimulator,
} from '../../shared/simulator/simulator.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import type { StateStore } from '../../shared/state/state-store.ts';

/** Start of simulated time in poller tests. */
export const POLL_TEST_START_MS = Date.UTC(2026, 2, 10, 9, 0, 0);
const TABLE = 'change-bridge-test';
/** Operations the contract does not offer to Portfolio Access Tokens (13 and 20). */
const PLAIN_TOKEN_ONLY = new Set(['resourceCategoryImageAssignment', 'taxEnvironment']);

/** Collects published events. */
export class CollectingPublisher implements EventPublisher {
  readonly events: EntityEvent[] = [];
  async publish(events: readonly unknown[]) {
    this.events.push(...(events as EntityEvent[]));
    return { published: events.length, thinned: 0, failures: [] };
  }
}

/** One customer stream (connection `main`, plain token) over `store`, for poller tests. */
export interface CustomerStream {
  client: ConnectorClient;
  definition: StreamDefinition;
  deps: PollDeps & { publisher: CollectingPublisher };
}

/** The customer stream of connection `main` against `sim`, read by pages of `pageCount`. */
export function customerStream(
  sim: RunningSimulator,
  clock: ManualClock,
  store: StateStore,
  pageCount = 1000,
): CustomerStream {
  return entityStream(sim, clock, store, 'customer', pageCount);
}

/** The stream of `entity` (a POLL_ENTITIES name) of connection `main` against `sim`. */
export function entityStream(
  sim: RunningSimulator,
  clock: ManualClock,
  store: StateStore,
  entity: string,
  pageCount = 1000,
): CustomerStream {
  const client = createConnectorClient(
    {
      baseUrl: sim.url,
      clientToken: sim.tokens.clientToken,
      accessToken: sim.tokens.accessToken,
      client: 'tests',
      rateLimit: false,
    },
    { clock },
  );
  const settings = pollSettingsFromEnv(
    { POLL_ENTITIES: entity, POLL_HISTORY_START: '400d', POLL_INTERVAL: '1s' },
    clock.now(),
  );
  const [definition] = streamDefinitions('main', settings);
  const publisher = new CollectingPublisher();
  const deps = { store, client, publisher, clock, windows: settings.windows, pageCount };
  return { client, definition: definition!, deps };
}

/** Poll deps over a given store and client, publishing into a collector: poll loop tests. */
export function collectingPollDeps(
  store: PollDeps['store'],
  client: PollDeps['client'],
  clock: ManualClock,
  settings: PollSettings,
): PollDeps & { publisher: CollectingPublisher } {
  return {
    store,
    client,
    publisher: new CollectingPublisher(),
    clock,
    windows: settings.windows,
    pageCount: settings.pageCount,
  };
}

/** A simulator, dynalite and two connections wired like `npm start`, on one ManualClock. */
export interface PollHarness {
  clock: ManualClock;
  sim: RunningSimulator;
  publisher: CollectingPublisher;
  observer: PollObserver;
  /** The overlap memory every poll shares, as in the local runtime. */
  overlapMemory: OverlapMemory;
  deps(connection: 'chain' | 'hotel'): PollDeps;
  definitions(): StreamDefinition[];
  /** The stream of `entityType` and the deps of the connection whose token it takes. */
  streamOf(entityType: string): { definition: StreamDefinition; deps: PollDeps };
  /** One planner tick over both connections. */
  pollAll(): Promise<PollOutcome[]>;
  close(): Promise<void>;
}

/**
 * Connection `chain` uses the Portfolio Access Token (all enterprises); `hotel` uses the
 * plain token (the first enterprise), for the operations the contract does not offer to
 * Portfolio Access Tokens.
 */
export async function startPollHarness(
  size: DatasetSize = 'small',
  seed = 11,
  simulator: Pick<SimulatorOptions, 'commitLagMs' | 'customers' | 'deletesMoveUpdatedUtc'> = {},
  /** Poll intervals: one for every stream (default 1 s), or `undefined` for each spec's default. */
  poll: { intervalMs?: number | undefined } = {},
  /**
   * The state store: dynalite as `npm start` has it (default), or {@link MemoryStateStore} (the
   * same semantics, held to them by the state store contract) where the test is about when
   * streams are polled, not about how their state is kept.
   */
  stateStore: 'dynalite' | 'memory' = 'dynalite',
): Promise<PollHarness> {
  const clock = new ManualClock(POLL_TEST_START_MS);
  const sim = await startSimulator({ seed, size, clock, rateLimit: false, ...simulator });
  const dynamo = stateStore === 'dynalite' ? await startLocalDynamoDb() : undefined;
  if (dynamo) await createStateTable(dynamo.client, TABLE);
  const store: StateStore = dynamo
    ? new DynamoDbStateStore({ client: dynamo.client, tableName: TABLE, clock })
    : new MemoryStateStore();
  const world = sim.controls.model.world;
  const base = {
    baseUrl: sim.url,
    clientToken: sim.tokens.clientToken,
    client: 'poller tests',
    rateLimit: false as const,
  };
  const clients: Record<'chain' | 'hotel', ConnectorClient> = {
    chain: createConnectorClient(
      {
        ...base,
        accessToken: sim.tokens.portfolioToken,
        portfolioScope: { chainIds: [world.chainId] },
      },
      { clock },
    ),
    hotel: createConnectorClient({ ...base, accessToken: sim.tokens.accessToken }, { clock }),
  };
  const publisher = new CollectingPublisher();
  const observer: PollObserver = {};
  const overlapMemory = new OverlapMemory();
  const settings: PollSettings = {
    intervalMs: 'intervalMs' in poll ? poll.intervalMs : 1000,
    entities: ENTITY_TYPES,
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
  const zoneOf = new Map(world.enterprises.map((e) => [e.Id, e.timeZone]));
  const harness: PollHarness = {
    clock,
    sim,
    publisher,
    observer,
    overlapMemory,
    deps: (connection) => ({
      store,
      client: clients[connection],
      publisher,
      clock,
      windows: settings.windows,
      pageCount: 1000,
      observer,
      overlapMemory,
    }),
    definitions() {
      const exportIds = [...sim.controls.model.exports.all()].map((entry) => entry.record.Id);
      const products = world.products.map((p) => ({
        productId: p.Id,
        timeZone: zoneOf.get(p.EnterpriseId) ?? 'UTC',
      }));
      const all = streamDefinitions('sim', settings, {
        scope: { chainId: world.chainId },
        exportIds,
        products,
        priceHorizonDays: 7,
      });
      return all.map((d) =>
        PLAIN_TOKEN_ONLY.has(d.spec.entityType)
          ? { ...d, streamId: `hotel:${d.spec.entityType}` }
          : d,
      );
    },
    streamOf(entityType) {
      const definition = harness.definitions().find((d) => d.spec.entityType === entityType)!;
      return {
        definition,
        deps: harness.deps(definition.streamId.startsWith('hotel:') ? 'hotel' : 'chain'),
      };
    },
    async pollAll() {
      const definitions = harness.definitions();
      const hotel = definitions.filter((d) => d.streamId.startsWith('hotel:'));
      const chain = definitions.filter((d) => !d.streamId.startsWith('hotel:'));
      return [
        ...(await pollDueStreams(chain, harness.deps('chain'), 'test')),
        ...(await pollDueStreams(hotel, harness.deps('hotel'), 'test')),
      ];
    },
    async close() {
      await Promise.all([clients.chain.close(), clients.hotel.close()]);
      await sim.close();
      await dynamo?.close();
    },
  };
  return harness;
}

/** The harness's customer streams with `INITIAL_SYNC=emit`: a first sync publishes every customer. */
export function emittingCustomerStreams(harness: PollHarness): StreamDefinition[] {
  return harness
    .definitions()
    .filter((d) => d.spec.entityType === 'customer')
    .map((d) => ({ ...d, initialSync: 'emit' as const }));
}

/** The ids of the stream's stored snapshots that are not tombstones. */
export async function storedIds(deps: PollDeps, streamId: string): Promise<string[]> {
  const stored = [];
  for await (const page of deps.store.scanSnapshots(streamId)) stored.push(...page);
  return stored.filter((s) => !s.deleted).map((s) => s.entityId);
}

/** Polls the stream until it has caught up (at most 20 polls). */
export async function pollUntilCaughtUp(
  definition: StreamDefinition,
  deps: PollDeps,
): Promise<void> {
  for (let poll = 0; poll < 20; poll++) {
    const outcome = await pollStream(definition, deps, 't');
    if (outcome.kind === 'polled' && outcome.caughtUp) break;
  }
}
