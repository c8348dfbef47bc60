import { join } from 'node:path';
import { shortAdminTokenWarning } from '../admin/admin-token.ts';
import type { AdminServer } from '../admin/node-server.ts';
import { type Clock, type RandomSource, systemClock, systemRandom } from '../clock.ts';
import { environmentConnectionView } from '../connections/connection-streams.ts';
import { createConnectorClient } from '../connector/connector-client.ts';
import type { StreamDefinition } from '../polling/poll-context.ts';
import type { PollLoop } from '../polling/poll-loop-options.ts';
import { SnapshotWriteGate } from '../polling/snapshot-write-gate.ts';
import { noticingStateStore, StateChangeNotices } from '../polling/state-change-notices.ts';
import { describeRefusal, ObservedPublisher } from '../publish/observed-publisher.ts';
import type { ProductSample } from '../simulator/product-samples.ts';
import { createStateTable } from '../state/dynamodb-table.ts';
import type { WebhookService } from '../webhooks/service.ts';
import { type ConnectorSource, openConnectorSource } from './connector-source.ts';
import { closePrivateFolders, ensureDataDir, STORE_FOLDER } from './data-dir.ts';
import type { DemoReceiver } from './demo-receiver.ts';
import { removeDemoSubscriptions, startDemoReceiverWithSubscription } from './demo-subscription.ts';
import { lockDirectory } from './directory-lock.ts';
import { startLocalDynamoDb } from './dynamodb.ts';
import { startLocalExpirySweeps } from './expiry-sweeps.ts';
import { startLocalAdminServer } from './local-admin-server.ts';
import { LOCAL_DEFAULTS, type LocalConfig } from './local-config.ts';
import { LOCAL_CONNECTION_ID } from './local-connection-id.ts';
import { openLocalConnections } from './local-connections.ts';
import { startLocalDispatch } from './local-dispatch.ts';
import { localGrantLedger } from './local-grant-ledger.ts';
import { startLocalPollLoop } from './local-poll-loop.ts';
import { openLocalStores } from './local-stores.ts';
import { planLocalStreams } from './local-streams.ts';
import { LOCAL_TABLE_NAME } from './local-table-name.ts';
import { openLocalWriteThrough } from './local-write-through.ts';
import type { Reporter } from './reporter.ts';

export { LOCAL_CONNECTION_ID, LOCAL_TABLE_NAME };

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
  /** Subscriptions stored when it started (a data dir started again keeps them), the demo's among them. */
  subscriptions: number;
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
      // The loop's detection and deliveries before LevelDB's compactions (on a full machine).
      lowerCompactionPriority: true,
    });
    closers.push(() => dynamo.close());
    const tableCreated = await createStateTable(dynamo.client, LOCAL_TABLE_NAME);
    stopIfAsked();
    const { state, webhookStore, deliveryCounter } = openLocalStores(dynamo.client, clock, random);
    const expirySweeps = await startLocalExpirySweeps(dynamo.client, clock, reporter, tableCreated);
    closers.push(() => expirySweeps.stop());

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

    const { settings, localSettings, tracked, exportIds, products, streams } = planLocalStreams(
      config,
      env,
      source,
      clock,
      reporter,
    );
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
    const pollLoop: PollLoop = startLocalPollLoop({
      store: state,
      client,
      publisher,
      clock,
      snapshotGate,
      config,
      env,
      settings,
      dispatch,
      registry: connections.registry,
      stateChanges,
      reporter,
      dynamoClient: dynamo.client,
    });
    stopOnFailedStart.push(() => pollLoop.stop());

    const { backfills, writeThrough } = openLocalWriteThrough({
      dynamoClient: dynamo.client,
      clock,
      snapshotGate,
      connections,
      source,
      publisher,
      state,
      clientDeps,
      reporter,
    });
    closers.push(() => writeThrough.close());
    stopIfAsked();
    const admin: AdminServer = await startLocalAdminServer({
      config,
      reporter,
      webhooks,
      writeThrough,
      state: adminState,
      connections,
      windows: settings.windows,
      deliveryCounter,
      backfills,
      clock,
      random,
      pollLoop,
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
      subscriptions: (await webhooks.listSubscriptions()).length,
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
