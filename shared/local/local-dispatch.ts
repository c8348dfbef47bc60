import { join } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Clock, RandomSource } from '../clock.ts';
import { createHostResolver } from '../dns/host-resolver.ts';
import { describeThrown } from '../errors.ts';
import { dispatchEventPattern } from '../publish/routing-rule.ts';
import {
  checkLongOverdueWaiting,
  type DispatchBatchOptions,
  processDispatchBatch,
} from '../webhooks/dispatcher.ts';
import { createDispatcherDeps } from '../webhooks/dispatcher-deps.ts';
import type { DispatcherSettings } from '../webhooks/dispatcher-env.ts';
import type { DynamoDbDeliveryCounter } from '../webhooks/dynamodb-delivery-counter.ts';
import type { DynamoDbWebhookStore } from '../webhooks/dynamodb-store.ts';
import { UndiciWebhookSender } from '../webhooks/http-sender.ts';
import { LaneRoutingDeliveryQueue } from '../webhooks/lane-routing-delivery-queue.ts';
import { SqsDeliveryQueue } from '../webhooks/queue.ts';
import { createWebhookService, type WebhookService } from '../webhooks/service.ts';
import { systemRandomBytes } from '../webhooks/signing.ts';
import { BulkPageWork } from './bulk-page-work.ts';
import { QUEUE_FOLDER } from './data-dir.ts';
import { startDiskQueue } from './disk-queue/disk-queue.ts';
import { DispatchLanes, laneKey } from './dispatch-lanes.ts';
import {
  DELIVERY_MESSAGE_MARKER,
  queuedDeliveries,
  requeuePendingDeliveries,
} from './dispatch-recovery.ts';
import { LocalEventRouter } from './event-router.ts';
import { startEventSourceLoop } from './event-source-loop.ts';
import { type IdleOverdueCheck, startIdleOverdueCheck } from './idle-overdue-check.ts';
import { queueDepth } from './queue-backlog-gauge.ts';
import type { Reporter } from './reporter.ts';
import { RouterOperationalSink } from './router-operational-sink.ts';
import { SubjectExpediter } from './subject-expediter.ts';

/** The live lane's queue: delivery messages (retries, recovered deliveries) wait here. */
export const DISPATCH_QUEUE_NAME = 'change-bridge-dispatch';
/** Where the events bulk work found wait (see DispatchLanes). */
const BULK_DISPATCH_QUEUE_NAME = 'change-bridge-dispatch-bulk';
/**
 * Where bulk work's delivery messages wait (a backfill's retries, deferrals, recoveries: see
 * LaneRoutingDeliveryQueue), consumed as bulk work with a budget of their own: on the live lane's
 * queue, thousands of them deferred over and over at an endpoint paused by frequent 429s filled
 * its budget, and live changes waited in the queue behind them for tens of seconds.
 */
export const BULK_DELIVERIES_QUEUE_NAME = 'change-bridge-dispatch-bulk-deliveries';
/**
 * Batches run at once per lane, at most. A batch holds its worker until its deliveries are
 * done, so one that waits on a slow endpoint's answer holds it: 32 let a quiet lane's small
 * batches (an event each) run beside as many as an endpoint's 16 slow requests hold.
 */
const LANE_CONCURRENCY = 32;

/**
 * Full batches' worth of messages a lane holds at once (see MessageBudget): what it holds in
 * memory stays that of eight batches, however many small ones run.
 */
const LANE_FULL_BATCHES = 8;

/**
 * Messages one invocation of the live lane gathers at most (a long poll returns as soon as any
 * arrive, so a quiet lane's batches stay small). A burst's batches then share their store reads,
 * writes and queue deletes among more deliveries: against 100, six alternating runs of the
 * webhook benchmark delivered 1,451/s on average against 1,339/s, better in every pair, for
 * ~10 MB more resident memory (500: ~1,600/s, ~40 MB more).
 */
const LIVE_BATCH_SIZE = 250;

/**
 * Messages one invocation of the bulk lane (a backfill's events) gathers at most, as Lambda's
 * batching window does: the store's reads and writes of a batch serve a hundred deliveries.
 * Kept at 100: a backfill holds the backlog bound's worth of events besides, and 250 cost it
 * 10–20 MB of its 300 MB for 2–3 % more.
 */
const BULK_BATCH_SIZE = 100;

/**
 * Full batches' worth of a backfill's events the bulk lane holds at once: half the others'. A
 * live change of a subject whose `created` a bulk batch holds waits for that batch to end (the
 * order, kept across a crash: see SubjectExpediter), and the batches held interleave at the
 * endpoint behind live work, so each ends about when all of them have been delivered. With
 * eight (800 events) about one round in four of `bench/latency-backfill.ts` after a restart
 * missed its p99 of 2 s (2.2-4.7 s, the slowest changes' `created` verified 2.7-4.2 s after
 * them); with four, none of eight rounds did, and the unthrottled emitting backfill delivered
 * 1,079 and 1,092/s at 252 and 249 MB against 1,037 and 966/s at 264 and 263 MB (alternating;
 * docs/benchmarks.md, the thirty-first stop).
 */
const BULK_FULL_BATCHES = 4;

/**
 * How long the requests in flight when the run stops have to be answered before they are cut
 * off. A receiver that answers at all answers here within milliseconds; one that does not (hung,
 * or slow past its timeout of 15 s by default) would hold the user's Ctrl-C. A request whose
 * connection still waits for its host's lookup gets none of it: it has sent nothing, and the
 * stop ends its lookup at once (HostLookupStoppedError). A request cut off is
 * no attempt: its delivery stays pending, due as the next run starts, which sends it again (with
 * the same `webhook-id`, should the receiver have taken it).
 */
export const STOP_REQUEST_GRACE_MS = 2_000;

/** What {@link startLocalDispatch} needs. */
export interface LocalDispatchOptions {
  dataDir: string;
  store: DynamoDbWebhookStore;
  deliveryCounter: DynamoDbDeliveryCounter;
  /** WEBHOOK_ALLOW_PRIVATE: loopback and private receivers allowed. */
  allowPrivate: boolean;
  /** The request timeout and endpoint health thresholds (DELIVERY_TIMEOUT_MS, WEBHOOK_*). */
  settings: DispatcherSettings;
  reporter: Reporter;
  clock: Clock;
  random: RandomSource;
  /**
   * A stop asked for while starting: the recovery of pending deliveries checks it between its
   * reads and sends, and the start then closes the queue and rejects with the signal's reason.
   */
  stopSignal?: AbortSignal;
}

/** The delivery side of a local run, running. */
export interface LocalDispatch {
  /** Routes published events to the dispatch queue, as the infra's rule does. */
  router: LocalEventRouter;
  /**
   * The pages of bulk reading in hand (the poll loop tells it): the bulk lane takes no messages
   * while any is (see BulkPageWork).
   */
  bulkPages: BulkPageWork;
  /** Subscriptions, deliveries and replays (the admin API's). */
  webhooks: WebhookService;
  /**
   * The queues' client and URLs: the live lane's, then the bulk lane's events and its deliveries
   * (the backlog gauge reads them).
   */
  sqsClient: SQSClient;
  queueUrls: readonly string[];
  /**
   * Pending deliveries of an earlier run re-enqueued at start: those whose message the queue no
   * longer held (the others wait for their message, as before the restart).
   */
  requeued: number;
  /**
   * Stops delivering, promptly whatever the receivers do: the consumers take no more messages
   * (what is queued waits on disk for the next run), the work of the batches running that has
   * not sent its request ends at once (see EndpointScheduler.stopSending: a delivery message is
   * left in the queue as it is, a new delivery deferred, pending and due as the next run starts),
   * the requests in flight have {@link STOP_REQUEST_GRACE_MS} to be answered before they are cut
   * off (no attempt: the delivery stays pending; one still waiting for its host's lookup ends at
   * once, as nothing was sent), and the batches write what they did. Resolves
   * once every batch has ended. Idempotent.
   */
  stop(): Promise<void>;
  /** Closes the queue (its log files). */
  close(): Promise<void>;
}

/**
 * Starts the delivery side of `change-bridge start`: the dispatch queue on disk (log files under
 * the data dir, not in memory: a backlog costs disk, and events published but not yet fanned out
 * survive a SIGKILL and a restart; design.md, Backpressure), the local event routing, the
 * dispatcher on the Lambda handler's core, and its consumer loops. The queue has two lanes:
 * events that bulk work found (a first sync, a backfill) wait in a queue of their own, so live
 * changes are not delivered behind a backlog of thousands (see DispatchLanes). Pending
 * deliveries of an earlier run are noted as waiting first (their retry messages read from the
 * queue), and re-enqueued where their message is missing. If anything after the queue fails, or
 * a stop is asked for on `options.stopSignal` meanwhile, the queue is closed (what the recovery
 * sent so far stays in it: the next start counts those deliveries as queued).
 */
export async function startLocalDispatch(options: LocalDispatchOptions): Promise<LocalDispatch> {
  const { clock, random, reporter, allowPrivate } = options;
  // Called in process only: no port offers the pending deliveries to the rest of the machine.
  const sqs = await startDiskQueue({
    path: join(options.dataDir, QUEUE_FOLDER),
    clock,
    listen: false,
  });
  let idleStarted: IdleOverdueCheck | undefined;
  let expediting: SubjectExpediter | undefined;
  const stopExpediting = async () => {
    expediting?.stop();
    await expediting?.idle();
  };
  try {
    // Longer than a batch of deliveries to one hanging endpoint (10 × 15 s), as in AWS.
    const attributes = { VisibilityTimeout: '180' };
    const queueUrl = await sqs.createQueue(DISPATCH_QUEUE_NAME, attributes);
    const bulkQueueUrl = await sqs.createQueue(BULK_DISPATCH_QUEUE_NAME, attributes);
    const bulkDeliveriesUrl = await sqs.createQueue(BULK_DELIVERIES_QUEUE_NAME, attributes);
    const bulkEmpty = async () => (await queueDepth(sqs.client, bulkQueueUrl)) === 0;
    // A backlog left by an earlier run: its subjects are counted again from the queue.
    const lanes = DispatchLanes.afterStart(sqs.groupKeys(BULK_DISPATCH_QUEUE_NAME));
    // A live change of a subject whose backfill events wait in the bulk lane takes them ahead.
    const expediter = new SubjectExpediter({
      lanes,
      move: (group) => sqs.moveMessageGroup(bulkQueueUrl, queueUrl, group),
      onError: (error) =>
        reporter.dispatchLogger.warn('moving a subject ahead of the bulk lane failed', {
          error: describeThrown(error),
        }),
      clock,
    });
    expediting = expediter;
    const router = new LocalEventRouter({
      client: sqs.client,
      routes: [{ name: 'dispatch', pattern: dispatchEventPattern(), queueUrl, bulkQueueUrl }],
      lanes: { state: lanes, bulkEmpty, expedite: (key) => expediter.expedite(key) },
      clock,
      random,
    });
    /** Aborted {@link STOP_REQUEST_GRACE_MS} into the stop: cuts off the requests in flight. */
    const cutOff = new AbortController();
    // Receivers' host names: cancellable lookups, so a stop never waits for a silent DNS server.
    // The sender's lookups end as the stop starts; the admin API's (a subscription's URL checked)
    // keep working until it ends, as the API serves meanwhile.
    const hosts = createHostResolver();
    const adminHosts = createHostResolver();
    const deps = createDispatcherDeps({
      store: options.store,
      // Due times to the millisecond: the local queue keeps them (SQS delays whole seconds).
      queue: new LaneRoutingDeliveryQueue(
        new SqsDeliveryQueue(sqs.client, queueUrl, { sendDueAt: true }),
        new SqsDeliveryQueue(sqs.client, bulkDeliveriesUrl, { sendDueAt: true }),
      ),
      sender: new UndiciWebhookSender({
        policy: { allowPrivate },
        resolve: hosts.resolve,
        clock,
        timeoutMs: options.settings.deliveryTimeoutMs,
        stopSignal: cutOff.signal,
      }),
      sink: new RouterOperationalSink(router),
      config: options.settings.config,
      clock,
      random,
      logger: reporter.dispatchLogger,
      deliveryCounter: options.deliveryCounter,
    });
    const webhooks = createWebhookService({
      ...deps,
      policy: { allowPrivate },
      resolve: adminHosts.resolve,
      randomBytes: systemRandomBytes,
    });
    // The deliveries whose messages wait in the queue (retries, however old), read before
    // anything is received.
    const waiting: string[] = [];
    for (const name of [DISPATCH_QUEUE_NAME, BULK_DELIVERIES_QUEUE_NAME])
      sqs.forEachBody(name, (body) => waiting.push(body), DELIVERY_MESSAGE_MARKER);
    options.stopSignal?.throwIfAborted();
    const requeued = await requeuePendingDeliveries(
      deps,
      queuedDeliveries(waiting),
      options.stopSignal,
    );
    options.stopSignal?.throwIfAborted();
    // Every batch asks about waiting deliveries long overdue (a lost retry message) as it ends;
    // while no batch runs, this does.
    const idle = startIdleOverdueCheck({
      clock,
      anyWaiting: () => deps.scheduler.anyWaiting,
      check: () => checkLongOverdueWaiting(deps),
      onError: (error) =>
        reporter.dispatchLogger.error('checking waiting deliveries long overdue failed', {
          error: describeThrown(error),
        }),
    });
    idleStarted = idle;
    // Bulk reading's pages go first: the bulk lane receives while none is in hand.
    const bulkPages = new BulkPageWork();
    const consume = (
      url: string,
      options: DispatchBatchOptions,
      batchSize: number,
      beforeReceive?: (signal: AbortSignal) => Promise<void>,
      fullBatches = LANE_FULL_BATCHES,
    ) =>
      startEventSourceLoop({
        client: sqs.client,
        queueUrl: url,
        handler: (event) => idle.batch(() => processDispatchBatch(event.Records, deps, options)),
        // Long polls return as soon as messages arrive.
        waitTimeSeconds: 20,
        concurrency: LANE_CONCURRENCY,
        maxMessagesInFlight: fullBatches * batchSize,
        batchSize,
        clock,
        ...(beforeReceive ? { beforeReceive } : {}),
        onError: (error) =>
          reporter.dispatchLogger.error('dispatch batch failed', {
            error: describeThrown(error),
          }),
      });
    const loops = [
      consume(queueUrl, { lane: 'live' }, LIVE_BATCH_SIZE),
      consume(
        bulkQueueUrl,
        {
          lane: 'bulk',
          onEventHandled: (event) => {
            const key = laneKey(event);
            lanes.handled(key);
            // A live change of its subject may wait behind it for the expediter's next look.
            expediting?.wake(key);
          },
        },
        BULK_BATCH_SIZE,
        (signal) => bulkPages.idle(signal),
        BULK_FULL_BATCHES,
      ),
      // Not held back by bulk reading: few, and a live change may wait behind one of them.
      consume(bulkDeliveriesUrl, { lane: 'bulk' }, BULK_BATCH_SIZE),
    ];
    let stopping: Promise<void> | undefined;
    const stop = async () => {
      await stopExpediting();
      deps.scheduler.stopSending();
      // A request whose connection still waits for its host's lookup has sent nothing: it ends
      // now, as no attempt, rather than at the cut-off (a silent name server held it 2 s).
      hosts.stop();
      const ended = new AbortController();
      void clock
        .sleep(STOP_REQUEST_GRACE_MS, ended.signal)
        .then(() => cutOff.abort())
        .catch(() => undefined);
      try {
        await Promise.all([idle.stop(), ...loops.map((loop) => loop.stop())]);
      } finally {
        ended.abort();
        adminHosts.stop();
      }
    };
    return {
      router,
      bulkPages,
      webhooks,
      sqsClient: sqs.client,
      queueUrls: [queueUrl, bulkQueueUrl, bulkDeliveriesUrl],
      requeued,
      stop: () => {
        stopping ??= stop();
        return stopping;
      },
      close: async () => {
        await stopExpediting();
        await idle.stop();
        await sqs.close();
      },
    };
  } catch (error) {
    await stopExpediting();
    await idleStarted?.stop();
    await sqs.close().catch(() => undefined);
    throw error;
  }
}
