import { join } from 'node:path';
import { shortAdminTokenWarning } from '../admin/admin-token.ts';
import { BackfillEstimates } from '../admin/backfill-estimates.ts';
import { BackfillSourcesCache } from '../admin/backfill-sources-cache.ts';
import { DynamoDbBackfillJobStore } from '../admin/dynamodb-backfill-job-store.ts';
import { type AdminServer, startAdminServer } from '../admin/node-server.ts';
import { toBudgetView } from '../admin/streams-view.ts';
import { ENTITY_TYPES } from '../changes/entity-types.ts';
import { type Clock, type RandomSource, systemClock, systemRandom } from '../clock.ts';
import { CONFIGURATION } from '../configuration-error.ts';
import { environmentConnectionView } from '../connections/connection-streams.ts';
import { createConnectorClient } from '../connector/connector-client.ts';
import { portfolioScopeProblem } from '../connector/connector-config.ts';
import {
  ENVIRONMENT_CREDENTIALS,
  storedConnectionCredentials,
} from '../connector/credential-fields.ts';
import { describeThrown, ValidationError } from '../errors.ts';
import { maxBacklogFromEnv } from '../polling/backlog-gauge.ts';
import { OverlapMemory } from '../polling/overlap-memory.ts';
import type { PollDeps, StreamDefinition } from '../polling/poll-context.ts';
import { type PollLoop, startPollLoop } from '../polling/poll-runner.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../polling/poll-settings.ts';
import {
  entitiesWithoutPortfolioRead,
  entitiesWithPortfolioRead,
} from '../polling/portfolio-entities.ts';
import { RecordBudget } from '../polling/record-budget.ts';
import { SnapshotWriteGate } from '../polling/snapshot-write-gate.ts';
import { noticingStateStore, StateChangeNotices } from '../polling/state-change-notices.ts';
import { trackedTargetsFromEnv, untrackedStreamWarnings } from '../polling/tracked-targets.ts';
import { describeRefusal, ObservedPublisher } from '../publish/observed-publisher.ts';
import type { ProductSample } from '../simulator/product-samples.ts';
import { DynamoDbStateStore } from '../state/dynamodb-state-store.ts';
import { createStateTable } from '../state/dynamodb-table.ts';
import { LOCAL_STREAM_STATE_SHARDS } from '../state/stream-state-shards.ts';
import { DynamoDbDeliveryCounter } from '../webhooks/dynamodb-delivery-counter.ts';
import { DynamoDbWebhookStore } from '../webhooks/dynamodb-store.ts';
import type { WebhookService } from '../webhooks/service.ts';
import { createConnectionWriteThrough } from '../writes/connection-write-through.ts';
import { registryWritableConnection } from '../writes/registry-writable-connection.ts';
import { type ConnectorSource, openConnectorSource } from './connector-source.ts';
import { closePrivateFolders, ensureDataDir, STORE_FOLDER } from './data-dir.ts';
import type { DemoReceiver } from './demo-receiver.ts';
import { removeDemoSubscriptions, startDemoReceiverWithSubscription } from './demo-subscription.ts';
import { lockDirectory } from './directory-lock.ts';
import { startLocalDynamoDb } from './dynamodb.ts';
import { LOCAL_DEFAULTS, type LocalConfig } from './local-config.ts';
import { LOCAL_CONNECTION_ID } from './local-connection-id.ts';
import { openLocalConnections } from './local-connections.ts';
import { startLocalDispatch } from './local-dispatch.ts';
import { localGrantLedger } from './local-grant-ledger.ts';
import { SqsBacklogGauge } from './queue-backlog-gauge.ts';
import type { Reporter } from './reporter.ts';
import { storeWriteProbe } from './store-probe.ts';

/** The lease owner of every local run's poller (see startBridge). */
const LOCAL_POLL_OWNER = 'local';

/** The state table of local runs. */
export const LOCAL_TABLE_NAME = 'change-bridge';
export { LOCAL_CONNECTION_ID };

/** A running local bridge. */
export interface RunningBridge {
  adminUrl: string;
  simulatorUrl: string | undefined;
  demoReceiverUrl: string | undefined;
  /** With the simulator: products to try products/getPricing on, with their time units. */
  productSamples: readonly ProductSample[];
  streams: readonly StreamDefinition[];
  /** The connections added at run time and polled at start (enabled), with their stream counts. */
  storedConnections: readonly { id: string; streams: number }[];
  /**
   * Pending deliveries of an earlier run re-enqueued at start, their message missing from the
   * queue (see LocalDispatch.requeued).
   */
  requeuedDeliveries: number;
  webhooks: WebhookService;
  /**
   * Stops cleanly and promptly: polls in flight finish, deliveries stop (see LocalDispatch.stop:
   * what is not sent waits, pending or queued on disk, for the next start), data is flushed.
   */
  stop(): Promise<void>;
}

/** What {@link startBridge} needs besides configuration. */
export interface BridgeDeps {
  env: Record<string, string | undefined>;
  reporter: Reporter;
  clock?: Clock;
  random?: RandomSource;
  /**
   * A stop asked for while starting (SIGINT, SIGTERM): checked between the start-up's steps and
   * within its long ones (the recovery of pending deliveries), where the start ends early,
   * closes what it opened and rejects with the signal's reason. Once started, `stop()` stops.
   */
  stopSignal?: AbortSignal;
}

/**
 * `change-bridge start`: the whole bridge in one process — the simulator (unless
 * CONNECTOR_BASE_URL is set), dynalite persisted under the data dir, the SQS emulator, the
 * pollers, the local event routing (the infra's rule), the dispatcher on the same Lambda
 * handler core, and the admin HTTP API. A restart resumes from the stored watermarks and
 * reads pending deliveries back (see startLocalDispatch). A stop asked for on `deps.stopSignal`
 * while it starts ends the start at the next step: what it opened is closed, in reverse order,
 * and it rejects with the signal's reason; what was stored stays whole (a recovery cut short
 * goes on at the next start).
 */
export async function startBridge(config: LocalConfig, deps: BridgeDeps): Promise<RunningBridge> {
  const clock = deps.clock ?? systemClock;
  const random = deps.random ?? systemRandom;
  const { reporter, env, stopSignal } = deps;
  /** Between steps: a stop asked for meanwhile ends the start here (the catch below closes). */
  const stopIfAsked = () => stopSignal?.throwIfAborted();
  const closers: Array<() => Promise<void>> = [];
  /** What `stop()` ends before the closers: on a failed start, they end here (nothing keeps running). */
  const stopOnFailedStart: Array<() => Promise<void>> = [];
  // Taken, as design.md sets no minimum, but said: a short admin token is easy to guess.
  const shortToken = shortAdminTokenWarning(config.adminToken);
  if (shortToken) reporter.warn(shortToken);
  try {
    stopIfAsked();
    await ensureDataDir(config.dataDir);
    // Before the simulator's seed anchor, the store and the queue open: a second process on the
    // same data dir would write beside this one (the anchor, the queue's log, the store's LevelDB).
    const unlockDataDir = lockDirectory(config.dataDir, 'the data dir');
    closers.push(async () => unlockDataDir());
    await closePrivateFolders(config.dataDir);
    const source: ConnectorSource = await openConnectorSource(env, {
      activityPerSecond: LOCAL_DEFAULTS.simulatorActivityPerSecond,
      dataDir: config.dataDir,
      random,
    });
    closers.push(() => source.close());
    stopIfAsked();

    const dynamo = await startLocalDynamoDb({
      path: join(config.dataDir, STORE_FOLDER),
      transport: config.storeThread ? 'thread' : 'in-process',
      // Reached in process only: no port offers every subscription's secret to the machine.
      listen: false,
    });
    closers.push(() => dynamo.close());
    await createStateTable(dynamo.client, LOCAL_TABLE_NAME);
    stopIfAsked();
    const state = new DynamoDbStateStore({
      client: dynamo.client,
      tableName: LOCAL_TABLE_NAME,
      clock,
      random,
      // Local writes cost nothing per kilobyte: snapshots are stored as text (a 100,000-customer
      // first sync about 5 % faster; docs/benchmarks.md).
      compressSnapshotsAbove: Number.POSITIVE_INFINITY,
      // No partition limits in dynalite: every full read of the states is two Queries, not 33.
      streamStateShards: LOCAL_STREAM_STATE_SHARDS,
    });
    const webhookStore = new DynamoDbWebhookStore({
      client: dynamo.client,
      tableName: LOCAL_TABLE_NAME,
      clock,
    });

    const deliveryCounter = new DynamoDbDeliveryCounter({
      client: dynamo.client,
      tableName: LOCAL_TABLE_NAME,
    });

    const dispatch = await startLocalDispatch({
      dataDir: config.dataDir,
      store: webhookStore,
      deliveryCounter,
      allowPrivate: config.allowPrivate,
      settings: config.dispatch,
      reporter,
      clock,
      random,
      ...(stopSignal ? { stopSignal } : {}),
    });
    closers.push(() => dispatch.close());
    stopOnFailedStart.push(() => dispatch.stop());
    stopIfAsked();
    const { router, webhooks } = dispatch;

    const settings = pollSettingsFromEnv(
      {
        ...env,
        POLL_INTERVAL: `${config.pollIntervalMs}ms`,
        // The built-in simulator's hotel has a year of history, exports and products to follow.
        ...(source.simulator
          ? {
              POLL_HISTORY_START: env.POLL_HISTORY_START ?? '400d',
              POLL_ENTITIES: env.POLL_ENTITIES ?? ENTITY_TYPES.join(','),
            }
          : {}),
      },
      clock.now(),
    );
    const { portfolioScope } = source.connection;
    const scopeProblem = portfolioScopeProblem(portfolioScope, settings.entities);
    if (scopeProblem)
      throw new ValidationError(CONFIGURATION, [
        { path: 'CONNECTOR_PORTFOLIO_SCOPE', message: scopeProblem },
      ]);
    const unreadable = portfolioScope ? entitiesWithoutPortfolioRead(settings.entities) : [];
    if (unreadable.length > 0 && env.POLL_ENTITIES !== undefined)
      throw new ValidationError(CONFIGURATION, [
        {
          path: 'POLL_ENTITIES',
          message: `a Portfolio Access Token (CONNECTOR_PORTFOLIO_SCOPE) cannot read ${unreadable.join(', ')}: leave them out`,
        },
      ]);
    // Left to the defaults, a portfolio connection polls what its token can read.
    const localSettings = portfolioScope
      ? { ...settings, entities: entitiesWithPortfolioRead(settings.entities) }
      : settings;
    // POLL_EXPORT_IDS and POLL_PRODUCT_IDS name what to follow; left unset with the built-in
    // simulator, its exports and sample products are followed.
    const tracked = trackedTargetsFromEnv(env);
    const exportIds = tracked.exportIds ?? source.exportIds;
    const products = tracked.products ?? source.products;
    // An export or productPrice stream with nothing to follow would poll nothing, with no word.
    for (const warning of untrackedStreamWarnings(localSettings.entities, { exportIds, products }))
      reporter.warn(warning);
    const streams = streamDefinitions(LOCAL_CONNECTION_ID, localSettings, {
      scope: source.scope,
      ...(exportIds ? { exportIds } : {}),
      ...(products ? { products } : {}),
    });
    // Grants live in the state table, so a restart knows what the last 30 s already spent.
    const clientDeps = {
      clock,
      random,
      budgetLedger: localGrantLedger(dynamo.client, LOCAL_TABLE_NAME),
      budgetMarginMs: settings.budgetMarginMs,
    };
    const client = createConnectorClient(source.connection, clientDeps);
    stopOnFailedStart.push(() => client.close());
    // What the admin API does to stream states (resets, backfills, removals) is told to the
    // poll loop, which re-reads those streams at once instead of every state every few ticks.
    const stateChanges = new StateChangeNotices();
    const adminState = noticingStateStore(state, stateChanges);
    // The CONNECTOR_* connection is `local`; connections added at run time come from the store.
    const connections = await openLocalConnections({
      dataDir: config.dataDir,
      dynamo: dynamo.client,
      tableName: LOCAL_TABLE_NAME,
      state: adminState,
      settings,
      tracked: { ...(exportIds ? { exportIds } : {}), ...(products ? { products } : {}) },
      deployment: source.connection,
      fixed: {
        id: LOCAL_CONNECTION_ID,
        definitions: streams,
        client,
        connector: source.connection,
        signal: new AbortController().signal,
      },
      fixedView: environmentConnectionView(LOCAL_CONNECTION_ID, localSettings, clock.now()),
      clientDeps,
      clock,
      onError: (message) => reporter.info(message),
      onWarning: (message) => reporter.warn(message),
      onInfo: (message) => reporter.info(message),
    });
    closers.push(() => connections.close());
    stopIfAsked();
    const publisher = new ObservedPublisher(
      router,
      (events) => reporter.events(events),
      (refusals) => {
        for (const { failure, subject } of refusals)
          reporter.info(describeRefusal(failure, subject), { ...failure });
      },
    );
    const snapshotGate = new SnapshotWriteGate();
    const pollDeps: PollDeps = {
      store: state,
      client,
      publisher,
      clock,
      windows: settings.windows,
      pageCount: settings.pageCount,
      // One process at a time opens a data dir (LevelDB locks it) and its loop runs each stream
      // once at a time: the poller takes no leases.
      solePoller: true,
      // Backpressure: detection pauses while the dispatch queue holds more than the bound.
      backlog: new SqsBacklogGauge(
        dispatch.sqsClient,
        dispatch.queueUrls,
        maxBacklogFromEnv(env.BRIDGE_MAX_BACKLOG),
      ),
      // Many busy streams at once (1,000 hotels of one chain) hold a bounded share of pages.
      records: new RecordBudget(config.pollMaxRecordsInFlight),
      // A burst re-read in the next windows' overlap is passed over, not judged again.
      overlapMemory: new OverlapMemory(),
      // The write-through proxy below shares this process: live pages store in batches unless
      // a proxied write of their stream overlaps them.
      snapshotGate,
    };
    const pollLoop: PollLoop = startPollLoop({
      definitions: () => connections.registry.definitions(),
      connectionOf: (definition) => connections.registry.get(definition.connectionId),
      deps: pollDeps,
      owner: LOCAL_POLL_OWNER,
      // A due stream waits at most a quarter interval (250 ms at most) for the planner to see it.
      tickMs: Math.min(config.pollIntervalMs / 4, 250),
      concurrency: config.pollConcurrency,
      stateChanges,
      onOutcome: (outcome) => reporter.pollOutcome(outcome),
      // A poll whose failure the store could not record (a full disk) is the stream's line,
      // held back by its backoff; this one is the loop's own failures.
      onStreamHeld: (held) => reporter.streamHeld(held),
      onStreamResumed: (resumed) => reporter.streamResumed(resumed),
      // Held streams poll again within seconds of the disk having room, not after their backoff.
      probeWrites: storeWriteProbe(dynamo.client, LOCAL_TABLE_NAME, clock),
      onStoreWritable: (released) => reporter.storeWritable(released),
      onError: (error, during) =>
        reporter.warn(
          `${during === 'state read' ? 'reading the stream states' : 'planning a poll tick'} failed: ${describeThrown(error)}`,
        ),
    });
    stopOnFailedStart.push(() => pollLoop.stop());

    // Any connection the process polls, named by the call (`local` when none is): one added at
    // run time is writable at once, one disabled or removed no longer.
    const backfills = new DynamoDbBackfillJobStore({
      client: dynamo.client,
      tableName: LOCAL_TABLE_NAME,
      clock,
    });
    const writeThrough = createConnectionWriteThrough({
      snapshotGate,
      // A write's events in a stream with a backfill running count in the job (its `written`).
      backfills,
      connectionFor: (connectionId) =>
        registryWritableConnection(connectionId, {
          registry: connections.registry,
          store: connections.admin.store,
          defaultId: LOCAL_CONNECTION_ID,
          ...(connections.admin.notPolledBecause
            ? { notPolledBecause: connections.admin.notPolledBecause }
            : {}),
        }),
      credentialsOf: (connectionId) =>
        connectionId === undefined || connectionId === LOCAL_CONNECTION_ID
          ? `connection ${LOCAL_CONNECTION_ID} (${source.simulator ? "the built-in simulator's tokens" : ENVIRONMENT_CREDENTIALS})`
          : storedConnectionCredentials(connectionId, "the deployment's ClientToken"),
      publisher,
      state,
      clock,
      // The pollers' budget of the token: the proxy's requests count in it.
      clientDeps,
      onPublishError: (error, operation) =>
        reporter.info(`write-through ${operation}: events not published: ${describeThrown(error)}`),
    });
    closers.push(() => writeThrough.close());
    stopIfAsked();
    const admin: AdminServer = await startAdminServer({
      port: config.port,
      host: config.host,
      token: config.adminToken,
      allowedHosts: config.allowedHosts,
      log: (line) => reporter.info(line),
      deps: {
        webhooks,
        writeThrough,
        state: adminState,
        // Read per request: connections added or disabled at run time change the streams.
        streams: async () => connections.registry.definitions(),
        connections: connections.admin,
        windows: settings.windows,
        deliveryCounter,
        backfills,
        backfillSources: new BackfillSourcesCache(),
        backfillEstimates: new BackfillEstimates(),
        clock,
        random,
        // A stream held back by the poll loop (a full disk) shows when it is polled next.
        heldStreams: () => pollLoop.held(),
        budgets: () =>
          connections.registry.connections().flatMap((connection) => {
            const view = connection.client.budgetView();
            return view ? [toBudgetView(connection.id, view)] : [];
          }),
        onError: (error, request) =>
          reporter.info(`admin ${request.method} ${request.path} failed: ${describeThrown(error)}`),
      },
    });
    stopOnFailedStart.push(() => admin.close());
    stopIfAsked();

    let demo: DemoReceiver | undefined;
    if (config.demoReceiver)
      demo = await startDemoReceiverWithSubscription(webhooks, webhookStore, reporter);
    else if ((await removeDemoSubscriptions(webhooks)) > 0)
      reporter.info("removed the last run's demo subscription: its receiver stopped with that run");

    let stopping: Promise<void> | undefined;
    return {
      adminUrl: admin.url,
      simulatorUrl: source.simulator?.url,
      demoReceiverUrl: demo?.url,
      // The banner names the simulator's sample products only when they are the ones followed.
      productSamples: tracked.products ? [] : (source.productSamples ?? []),
      streams,
      storedConnections: connections.registry
        .connections()
        .filter((connection) => connection.id !== LOCAL_CONNECTION_ID)
        .map((connection) => ({ id: connection.id, streams: connection.definitions.length })),
      requeuedDeliveries: dispatch.requeued,
      webhooks,
      stop: () => {
        stopping ??= (async () => {
          // Together: the polls in flight finish (what they publish waits in the queue on disk for
          // the next run) while the deliveries stop, neither waiting for the other.
          await Promise.all([pollLoop.stop(), dispatch.stop()]);
          await admin.close();
          await demo?.close();
          await client.close();
          for (const close of closers.reverse()) await close();
        })();
        return stopping;
      },
    };
  } catch (error) {
    // A start that fails (the admin port in use, say) must end what it started, or its loops
    // would keep the process alive with nothing listening.
    for (const stop of stopOnFailedStart.reverse()) await stop().catch(() => undefined);
    for (const close of closers.reverse()) await close().catch(() => undefined);
    throw error;
  }
}
