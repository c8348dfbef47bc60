import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { ManualClock, systemClock, systemRandom } from '../shared/clock.ts';
import { createConnectorClient } from '../shared/connector/connector-client.ts';
import { startLocalDynamoDb } from '../shared/local/dynamodb.ts';
import { startSqsEmulator } from '../shared/local/sqs-emulator.ts';
import type { PollDeps, StreamDefinition } from '../shared/polling/poll-context.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../shared/polling/poll-settings.ts';
import { pollStream } from '../shared/polling/poll-stream.ts';
import { RULES_REFRESH_MS } from '../shared/publish/bus-rules.ts';
import { DynamoDbBulkLaneLedger } from '../shared/publish/dynamodb-bulk-lane-ledger.ts';
import { createPublisher, parsePublisherConfig } from '../shared/publish/publisher-config.ts';
import { startSimulator } from '../shared/simulator/simulator.ts';
import { DynamoDbStateStore } from '../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../shared/state/dynamodb-table.ts';
import { processDispatchBatch } from '../shared/webhooks/dispatcher.ts';
import { createDispatcherDeps } from '../shared/webhooks/dispatcher-deps.ts';
import { DynamoDbDeliveryCounter } from '../shared/webhooks/dynamodb-delivery-counter.ts';
import { DynamoDbEndpointSlots } from '../shared/webhooks/dynamodb-endpoint-slots.ts';
import { DynamoDbWebhookStore } from '../shared/webhooks/dynamodb-store.ts';
import { DynamoDbWaitingLedger } from '../shared/webhooks/dynamodb-waiting-ledger.ts';
import { EndpointScheduler } from '../shared/webhooks/endpoint-scheduler.ts';
import { UndiciWebhookSender } from '../shared/webhooks/http-sender.ts';
import { MemoryOperationalEventSink } from '../shared/webhooks/operational-events.ts';
import { SqsDeliveryQueue } from '../shared/webhooks/queue.ts';
import { createWebhookService } from '../shared/webhooks/service.ts';
import { systemRandomBytes } from '../shared/webhooks/signing.ts';
import { type BusCounts, countDynamoDb, countingBus, countSqs } from './cost-counters.ts';
import { DISPATCH_BATCH_SIZE, SQS_RECEIVE_MAX } from './prices.ts';
import { type BenchReceiver, startBenchReceiver } from './receiver.ts';

const TABLE = 'change-bridge-cost';
const LOOPBACK = async () => [{ address: '127.0.0.1', family: 4 as const }];

/** What one measured round counted: poll of `events` changes, dispatch to every subscriber. */
export interface RoundCounts {
  events: number;
  subscribers: number;
  /** Webhooks whose signature a receiver verified. */
  delivered: number;
  bus: BusCounts;
  sqsRequests: Map<string, number>;
  sqsBilled: Map<string, number>;
  dynamoCommands: Map<string, number>;
  poller: { readUnits: number; writeUnits: number; seconds: number };
  dispatcher: { readUnits: number; writeUnits: number; seconds: number; invocations: number };
  logBytes: number;
  /** Webhook body bytes sent (data transfer out). */
  transferBytes: number;
}

/** Options of one round. */
export interface RoundOptions {
  changes: number;
  /** Subscribers in total (added as needed; each has its own verifying receiver). */
  subscribers: number;
  /** Event patterns of the user rules on the bus during the round. */
  rules: readonly object[];
}

/** The real poller, publisher, SQS and dispatcher wired with counters on every AWS client. */
export interface CostPipeline {
  round(options: RoundOptions): Promise<RoundCounts>;
  close(): Promise<void>;
}

/**
 * Starts the pipeline of the cost bench: the simulator (medium, 10,000 customers), dynalite,
 * the SQS emulator with the dispatch queue, and a stand-in bus. The poller publishes with
 * the publisher the Lambda builds from its environment (`DISPATCH_QUEUE_URL`, the bus in
 * `matched` mode); the customer stream's first sync (baseline) runs before any round.
 */
export async function startCostPipeline(): Promise<CostPipeline> {
  const clock = new ManualClock(Date.UTC(2026, 2, 10, 9, 0, 0));
  const sim = await startSimulator({ seed: 4, size: 'medium', clock, rateLimit: false });
  const dynamo = await startLocalDynamoDb({
    // Through the SDK over HTTP, as Lambda reaches DynamoDB: the benchmark counts the SDK's
    // commands and their consumed capacity (the in-process route skips the SDK).
    transport: 'http',
  });
  const sqs = await startSqsEmulator();
  const receivers: BenchReceiver[] = [];
  const connector = createConnectorClient(
    {
      baseUrl: sim.url,
      clientToken: sim.tokens.clientToken,
      accessToken: sim.tokens.accessToken,
      client: 'change-bridge bench',
      rateLimit: false,
    },
    { clock },
  );
  await createStateTable(dynamo.client, TABLE);
  const queueUrl = await sqs.createQueue('dispatch', { VisibilityTimeout: '30' });
  const bulkQueueUrl = await sqs.createQueue('bulk-dispatch', { VisibilityTimeout: '30' });
  const ddb = countDynamoDb(dynamo.client);
  const sqsCounts = countSqs(sqs.client);
  const bus = countingBus();
  const state = new DynamoDbStateStore({ client: dynamo.client, tableName: TABLE, clock });
  const settings = pollSettingsFromEnv(
    { POLL_ENTITIES: 'customer', POLL_HISTORY_START: '400d', POLL_SETTLE_LAG: '0s' },
    clock.now(),
  );
  const definition: StreamDefinition = streamDefinitions('main', settings)[0]!;
  // As in AWS: the bulk dispatch lane configured, so each publish of live events reads the
  // stream's bulk-lane counts (no bulk work here: every event goes to the dispatch queue).
  const publisher = createPublisher(
    parsePublisherConfig({
      DISPATCH_QUEUE_URL: queueUrl,
      BULK_DISPATCH_QUEUE_URL: bulkQueueUrl,
      PUBLISH_EVENT_BUS_NAME: 'bench',
    }),
    {
      eventBridgeClient: bus.client,
      sqsClient: sqs.client,
      clock,
      bulkLaneLedger: new DynamoDbBulkLaneLedger({
        client: dynamo.client,
        tableName: TABLE,
        clock,
      }),
    },
  );
  const pollDeps: PollDeps = {
    store: state,
    client: connector,
    publisher,
    clock,
    windows: settings.windows,
    pageCount: settings.pageCount,
  };
  await pollStream(definition, pollDeps, 'bench');
  let logBytes = 0;
  const deps = createDispatcherDeps({
    store: new DynamoDbWebhookStore({
      client: dynamo.client,
      tableName: TABLE,
      clock: systemClock,
    }),
    queue: new SqsDeliveryQueue(sqs.client, queueUrl),
    sender: new UndiciWebhookSender({
      policy: { allowPrivate: true },
      resolve: LOOPBACK,
      clock: systemClock,
    }),
    sink: new MemoryOperationalEventSink(),
    clock: systemClock,
    random: systemRandom,
    // As in AWS: the endpoints' slots shared through the table (read and written when an
    // invocation takes its share and when it gives it back).
    scheduler: new EndpointScheduler(
      systemClock,
      new DynamoDbEndpointSlots({
        client: dynamo.client,
        tableName: TABLE,
        clock: systemClock,
        random: systemRandom,
      }),
    ),
    // As in AWS: one read per batch and endpoint of its count of waiting deliveries.
    waitingLedger: new DynamoDbWaitingLedger({ client: dynamo.client, tableName: TABLE }),
    // As in AWS: one counter write per stream per batch (backfill progress).
    deliveryCounter: new DynamoDbDeliveryCounter({ client: dynamo.client, tableName: TABLE }),
    logger: {
      warn: (message, fields) => {
        logBytes += JSON.stringify({ message, ...fields }).length;
      },
      error: (message, fields) => {
        logBytes += JSON.stringify({ message, ...fields }).length;
      },
    },
  });
  const service = createWebhookService({
    ...deps,
    policy: { allowPrivate: true },
    resolve: LOOPBACK,
    randomBytes: systemRandomBytes,
  });
  const activeIds = [...sim.controls.model.customers.all()]
    .filter((entry) => entry.record.IsActive)
    .map((entry) => entry.record.Id);
  let nextCustomer = 0;

  async function dispatchAll(): Promise<{ seconds: number; invocations: number }> {
    let seconds = 0;
    let invocations = 0;
    for (let emptyReceives = 0; emptyReceives < 2; ) {
      // As Lambda's SQS poller does: receives of at most 10 until the batch is full or the
      // queue has nothing more (the batching window).
      const messages: Message[] = [];
      while (messages.length < DISPATCH_BATCH_SIZE) {
        const received = await sqs.client.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: Math.min(SQS_RECEIVE_MAX, DISPATCH_BATCH_SIZE - messages.length),
            WaitTimeSeconds: messages.length === 0 ? 1 : 0,
          }),
        );
        const got = received.Messages ?? [];
        if (got.length === 0) break;
        messages.push(...got);
      }
      if (messages.length === 0) {
        emptyReceives += 1;
        continue;
      }
      emptyReceives = 0;
      const records = messages.map((m) => ({ messageId: m.MessageId ?? '', body: m.Body ?? '' }));
      const started = performance.now();
      const result = await processDispatchBatch(records, deps);
      await deps.scheduler.releaseIdleSlots();
      seconds += (performance.now() - started) / 1000;
      invocations += 1;
      const failed = new Set(result.batchItemFailures.map((f) => f.itemIdentifier));
      const done = messages.filter((m) => !failed.has(m.MessageId ?? ''));
      for (let i = 0; i < done.length; i += SQS_RECEIVE_MAX)
        await sqs.client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: done
              .slice(i, i + SQS_RECEIVE_MAX)
              .map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle })),
          }),
        );
    }
    // Empty long polls are the event source mapping's fixed cost, not a per-event one.
    sqsCounts.requests.set('ReceiveMessage', (sqsCounts.requests.get('ReceiveMessage') ?? 0) - 2);
    sqsCounts.billed.set('ReceiveMessage', (sqsCounts.billed.get('ReceiveMessage') ?? 0) - 2);
    return { seconds, invocations };
  }

  return {
    async round(options) {
      while (receivers.length < options.subscribers) {
        const receiver = await startBenchReceiver();
        const { secret } = await service.createSubscription({ url: receiver.url });
        receiver.setSecret(secret);
        receivers.push(receiver);
      }
      bus.setRules(options.rules);
      const ids = activeIds.slice(nextCustomer, nextCustomer + options.changes);
      nextCustomer += options.changes;
      const model = sim.controls.model;
      for (const id of ids) model.update(model.customers, 'customer', id, { Notes: `cost ${id}` });
      // Past the rule listing's refresh, so the round sees its own rules.
      await clock.advance(RULES_REFRESH_MS + 2_000);
      // Only the measured pipeline is counted from here on.
      ddb.commands.clear();
      ddb.readUnits = 0;
      ddb.writeUnits = 0;
      sqsCounts.clear();
      bus.reset();
      logBytes = 0;
      const before = receivers.map((r) => ({ ok: r.received - r.rejected, bytes: r.bytes }));

      const pollStarted = performance.now();
      await pollStream(definition, pollDeps, 'bench');
      const pollerSeconds = (performance.now() - pollStarted) / 1000;
      const polled = { readUnits: ddb.readUnits, writeUnits: ddb.writeUnits };
      const dispatched = await dispatchAll();
      return {
        events: ids.length,
        subscribers: receivers.length,
        delivered: receivers.reduce((n, r, i) => n + r.received - r.rejected - before[i]!.ok, 0),
        bus: { ...bus.counts },
        sqsRequests: new Map(sqsCounts.requests),
        sqsBilled: new Map(sqsCounts.billed),
        dynamoCommands: new Map(ddb.commands),
        poller: { ...polled, seconds: pollerSeconds },
        dispatcher: {
          readUnits: ddb.readUnits - polled.readUnits,
          writeUnits: ddb.writeUnits - polled.writeUnits,
          seconds: dispatched.seconds,
          invocations: dispatched.invocations,
        },
        logBytes,
        transferBytes: receivers.reduce((n, r, i) => n + r.bytes - before[i]!.bytes, 0),
      };
    },
    async close() {
      await connector.close();
      for (const receiver of receivers) await receiver.close();
      await sqs.close();
      await dynamo.close();
      await sim.close();
    },
  };
}
