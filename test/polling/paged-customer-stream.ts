import { type Clock, ManualClock } from '../../shared/clock.ts';
import {
  type ConnectorClient,
  createConnectorClient,
} from '../../shared/connector/connector-client.ts';
import { createUndiciTransport } from '../../shared/connector/http-transport.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { OverlapMemory } from '../../shared/polling/overlap-memory.ts';
import type { PollDeps, StreamDefinition } from '../../shared/polling/poll-context.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { CollectingPublisher, POLL_TEST_START_MS } from './poll-harness.ts';

/** The customer stream of connection `main` over the simulator and dynalite, read by small pages. */
export interface PagedCustomerStream {
  clock: ManualClock;
  sim: RunningSimulator;
  client: ConnectorClient;
  definition: StreamDefinition;
  deps: PollDeps & { publisher: CollectingPublisher };
  /** Bodies of the connector requests sent, in order (tokens included: tests only). */
  requests: Array<Record<string, unknown>>;
  /** Runs `hook` once, after the next connector answer arrives (between two pages). */
  afterNextAnswer(hook: () => void): void;
  /** Whether a hook set by {@link afterNextAnswer} has not run yet. */
  hookPending(): boolean;
  close(): Promise<void>;
}

/** Options of {@link startPagedCustomerStream}. */
export interface PagedCustomerStreamOptions {
  /** POLL_OVERLAP (default 5s). */
  overlap?: string;
  /** POLL_SETTLE_LAG (default 0s). */
  settleLag?: string;
  /** Limitation.Count of each page (default 10). */
  pageCount?: number;
  /** How far the connector's clock runs behind the bridge's (default 0; negative: ahead). */
  connectorBehindMs?: number;
}

/**
 * Starts a simulator of 60 customers, dynalite and the customer stream (POLL_INTERVAL 1s) on
 * one manual clock (the connector's may run `connectorBehindMs` behind it), with a transport
 * that lets a test act between two pages.
 */
export async function startPagedCustomerStream({
  overlap = '5s',
  settleLag = '0s',
  pageCount = 10,
  connectorBehindMs = 0,
}: PagedCustomerStreamOptions = {}): Promise<PagedCustomerStream> {
  const clock = new ManualClock(POLL_TEST_START_MS);
  const connectorClock: Clock =
    connectorBehindMs === 0
      ? clock
      : {
          now: () => clock.now() - connectorBehindMs,
          sleep: (ms, signal) => clock.sleep(ms, signal),
        };
  const sim = await startSimulator({
    seed: 21,
    size: 'small',
    customers: 60,
    clock: connectorClock,
    rateLimit: false,
  });
  let dynamo: LocalDynamoDb;
  try {
    dynamo = await startLocalDynamoDb();
  } catch (error) {
    await sim.close();
    throw error;
  }
  await createStateTable(dynamo.client, 'paged-customers');
  const store = new DynamoDbStateStore({
    client: dynamo.client,
    tableName: 'paged-customers',
    clock,
  });
  const http = createUndiciTransport();
  const requests: Array<Record<string, unknown>> = [];
  let hook: (() => void) | undefined;
  const client = createConnectorClient(
    {
      baseUrl: sim.url,
      clientToken: sim.tokens.clientToken,
      accessToken: sim.tokens.accessToken,
      client: 'tests',
      rateLimit: false,
    },
    {
      clock,
      transport: {
        async postJson(url, body, options) {
          requests.push(JSON.parse(body) as Record<string, unknown>);
          const answer = await http.postJson(url, body, options);
          const run = hook;
          hook = undefined;
          run?.();
          return answer;
        },
        close: () => http.close(),
      },
    },
  );
  const settings = pollSettingsFromEnv(
    {
      POLL_ENTITIES: 'customer',
      POLL_HISTORY_START: '400d',
      POLL_INTERVAL: '1s',
      POLL_OVERLAP: overlap,
      POLL_SETTLE_LAG: settleLag,
    },
    clock.now(),
  );
  return {
    clock,
    sim,
    client,
    definition: streamDefinitions('main', settings)[0]!,
    deps: {
      store,
      client,
      publisher: new CollectingPublisher(),
      clock,
      windows: settings.windows,
      pageCount,
      overlapMemory: new OverlapMemory(),
    },
    requests,
    afterNextAnswer(next) {
      hook = next;
    },
    hookPending: () => hook !== undefined,
    async close() {
      await client.close();
      await sim.close();
      await dynamo.close();
    },
  };
}

/**
 * Changes every customer of the stream's simulator (their Notes to `notes`) and moves the clock
 * on a second, so the next window holds them all (60 customers: 6 pages of 10).
 */
export async function changeEveryCustomer(h: PagedCustomerStream, notes: string): Promise<void> {
  const model = h.sim.controls.model;
  for (const entity of [...model.customers.all()])
    model.update(model.customers, 'customer', entity.record.Id, { Notes: notes });
  await h.clock.advance(1_000);
}
