import type { EntityEvent } from '../shared/changes/entity-event-schema.ts';
import type { EntityType } from '../shared/changes/entity-types.ts';
import type { Clock } from '../shared/clock.ts';
import {
  type ConnectorClient,
  createConnectorClient,
} from '../shared/connector/connector-client.ts';
import type { RateLimit } from '../shared/connector/rate-limit.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../shared/local/dynamodb.ts';
import { plannerLookaheadMs } from '../shared/polling/enqueue-poll-jobs.ts';
import { pollConnectionStreams } from '../shared/polling/poll-connection.ts';
import type { PollDeps, StreamDefinition } from '../shared/polling/poll-context.ts';
import { pollDueStreams } from '../shared/polling/poll-due-streams.ts';
import type { PollSettings } from '../shared/polling/poll-settings.ts';
import { streamDefinitions } from '../shared/polling/poll-settings.ts';
import type { PollOutcome } from '../shared/polling/poll-stream.ts';
import type { EventPublisher } from '../shared/publish/publisher.ts';
import type { DatasetSize } from '../shared/simulator/generate.ts';
import type { SimRateLimit } from '../shared/simulator/rate-limit.ts';
import { type RunningSimulator, startSimulator } from '../shared/simulator/simulator.ts';
import { DynamoDbStateStore } from '../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../shared/state/dynamodb-table.ts';

const TABLE = 'change-bridge-bench';
/** Operations the contract does not offer to Portfolio Access Tokens (13 and 20). */
const PLAIN_TOKEN_ONLY = new Set<EntityType>(['resourceCategoryImageAssignment', 'taxEnvironment']);

/** Counts what the pollers publish, keeping no events (pages are streamed, never all held). */
export class CountingPublisher implements EventPublisher {
  published = 0;
  readonly byStream = new Map<string, number>();
  async publish(events: readonly EntityEvent[]) {
    this.published += events.length;
    for (const event of events)
      this.byStream.set(event.data.entityType, (this.byStream.get(event.data.entityType) ?? 0) + 1);
    return { published: events.length, thinned: 0, failures: [] };
  }
}

/** Options of {@link startPollBench}. */
export interface PollBenchOptions {
  size: DatasetSize;
  seed: number;
  clock: Clock;
  settings: PollSettings;
  /** Server-side limit of the simulator (false: off). */
  serverRateLimit: SimRateLimit | false;
  /** Client-side limiter of the connector client (false: off). */
  clientRateLimit: RateLimit | false;
  /**
   * `portfolio`: a Portfolio Access Token for the chain, plus the plain token for the two
   * operations it cannot call (like the poller tests). `property`: the plain token of one
   * hotel for every stream (one property, one budget).
   */
  connection: 'portfolio' | 'property';
  /** Products priced by the productPrice stream. */
  productCount: number;
  publisher?: EventPublisher;
}

/** A simulator, dynalite and the poller wiring of `npm start`. */
export interface PollBench {
  sim: RunningSimulator;
  dynamo: LocalDynamoDb;
  publisher: EventPublisher;
  definitions: StreamDefinition[];
  /** One planner tick over every due stream, on the connection each stream uses. */
  pollAll(): Promise<PollOutcome[]>;
  /**
   * One poll job of the connection, as the AWS poller's handler runs it for a planner run now:
   * every stream listed, each polled if due by the planner's next run a minute later
   * (`pollConnectionStreams`; the price stream takes every slot due by then). The property
   * connection only.
   */
  pollJob(): Promise<PollOutcome[]>;
  close(): Promise<void>;
}

/** Starts the simulator and dynalite (in memory) and builds the streams and their clients. */
export async function startPollBench(options: PollBenchOptions): Promise<PollBench> {
  const { clock, settings } = options;
  const sim = await startSimulator({
    seed: options.seed,
    size: options.size,
    clock,
    rateLimit: options.serverRateLimit,
  });
  const dynamo = await startLocalDynamoDb({
    // Through the SDK over HTTP, as Lambda reaches DynamoDB: the benchmark counts the SDK's
    // commands and their consumed capacity (the in-process route skips the SDK).
    transport: 'http',
  });
  await createStateTable(dynamo.client, TABLE);
  const store = new DynamoDbStateStore({ client: dynamo.client, tableName: TABLE, clock });
  const world = sim.controls.model.world;
  const base = {
    baseUrl: sim.url,
    clientToken: sim.tokens.clientToken,
    client: 'change-bridge bench',
    rateLimit: options.clientRateLimit,
  };
  const plain = createConnectorClient({ ...base, accessToken: sim.tokens.accessToken }, { clock });
  const portfolio =
    options.connection === 'portfolio'
      ? createConnectorClient(
          {
            ...base,
            accessToken: sim.tokens.portfolioToken,
            portfolioScope: { chainIds: [world.chainId] },
          },
          { clock },
        )
      : undefined;
  const publisher = options.publisher ?? new CountingPublisher();
  const zoneOf = new Map(world.enterprises.map((e) => [e.Id, e.timeZone]));
  const firstEnterprise = world.enterprises[0]?.Id;
  const products = world.products
    .filter((p) => options.connection === 'portfolio' || p.EnterpriseId === firstEnterprise)
    .slice(0, options.productCount)
    .map((p) => ({ productId: p.Id, timeZone: zoneOf.get(p.EnterpriseId) ?? 'UTC' }));
  const definitions = streamDefinitions('bench', settings, {
    scope: { chainId: world.chainId },
    exportIds: [...sim.controls.model.exports.all()].map((entry) => entry.record.Id),
    products,
    priceHorizonDays: 7,
  });
  const deps = (client: ConnectorClient): PollDeps => ({
    store,
    client,
    publisher,
    clock,
    windows: settings.windows,
    pageCount: settings.pageCount,
  });
  const usesPlain = (d: StreamDefinition) =>
    portfolio === undefined || PLAIN_TOKEN_ONLY.has(d.spec.entityType);
  return {
    sim,
    dynamo,
    publisher,
    definitions,
    async pollAll() {
      const viaPlain = definitions.filter(usesPlain);
      const viaPortfolio = definitions.filter((d) => !usesPlain(d));
      return [
        ...(portfolio ? await pollDueStreams(viaPortfolio, deps(portfolio), 'bench') : []),
        ...(await pollDueStreams(viaPlain, deps(plain), 'bench')),
      ];
    },
    async pollJob() {
      if (portfolio) throw new Error('pollJob models the property connection only');
      const streamIds = definitions.map((d) => d.streamId);
      const job = await pollConnectionStreams(
        streamIds,
        definitions,
        deps(plain),
        'bench',
        clock.now() + plannerLookaheadMs(undefined),
      );
      return job.outcomes;
    },
    async close() {
      await Promise.all([plain.close(), portfolio?.close()]);
      await sim.close();
      await dynamo.close();
    },
  };
}
