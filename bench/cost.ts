import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { ManualClock, systemClock, systemRandom } from '../shared/clock.ts';
import { createConnectorClient } from '../shared/connector/connector-client.ts';
import { startLocalDynamoDb } from '../shared/local/dynamodb.ts';
import { startSqsEmulator } from '../shared/local/sqs-emulator.ts';
import type { PollDeps } from '../shared/polling/poll-context.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../shared/polling/poll-settings.ts';
import { pollStream } from '../shared/polling/poll-stream.ts';
import { EventBridgePublisher } from '../shared/publish/event-bridge-publisher.ts';
import { startSimulator } from '../shared/simulator/simulator.ts';
import { DynamoDbStateStore } from '../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../shared/state/dynamodb-table.ts';
import { processDispatchBatch } from '../shared/webhooks/dispatcher.ts';
import { createDispatcherDeps } from '../shared/webhooks/dispatcher-deps.ts';
import { DynamoDbDeliveryCounter } from '../shared/webhooks/dynamodb-delivery-counter.ts';
import { DynamoDbWebhookStore } from '../shared/webhooks/dynamodb-store.ts';
import { UndiciWebhookSender } from '../shared/webhooks/http-sender.ts';
import { MemoryOperationalEventSink } from '../shared/webhooks/operational-events.ts';
import { SqsDeliveryQueue } from '../shared/webhooks/queue.ts';
import { createWebhookService } from '../shared/webhooks/service.ts';
import { systemRandomBytes } from '../shared/webhooks/signing.ts';
import { countDynamoDb, countingBus, countSqs } from './cost-counters.ts';
import { formatNumber, isMain, quietAwsSdkNotice, recordFigure, renderTable } from './figures.ts';
import {
  DISPATCH_BATCH_SIZE,
  DISPATCHER_GB,
  LAMBDA_PLATFORM_LOG_BYTES,
  POLLER_GB,
  POLLER_LOG_BYTES_PER_POLL,
  PRICES,
  SQS_RECEIVE_MAX,
} from './prices.ts';
import { startBenchReceiver } from './receiver.ts';

const CHANGES = 2_000;
/** The bus archive is opt-in (`eventArchive`, infra/props.ts); the bench prices the default. */
const ARCHIVE_ON = false;
const GB = 1024 ** 3;
const TABLE = 'change-bridge-cost';

/**
 * AWS cost per million change events delivered to one subscriber: a small pipeline runs with
 * counters (poller → PutEvents → rule to SQS → dispatcher → webhook) on dynalite, the SQS
 * emulator and a stand-in bus, counting DynamoDB commands and consumed units, SQS requests,
 * PutEvents entries, Lambda invocations and their local wall time, logs and bytes sent; list
 * prices turn the counts into dollars per million events.
 */
export async function run(): Promise<void> {
  quietAwsSdkNotice();
  console.log(`cost (one poll of ${formatNumber(CHANGES)} changed customers, one subscriber)`);
  const clock = new ManualClock(Date.UTC(2026, 2, 10, 9, 0, 0));
  const sim = await startSimulator({ seed: 4, size: 'medium', clock, rateLimit: false });
  const dynamo = await startLocalDynamoDb();
  const sqs = await startSqsEmulator();
  const receiver = await startBenchReceiver();
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
  try {
    await createStateTable(dynamo.client, TABLE);
    const queueUrl = await sqs.createQueue('dispatch', { VisibilityTimeout: '30' });
    const ddb = countDynamoDb(dynamo.client);
    const sqsCounts = countSqs(sqs.client);
    const bus = countingBus(sqs.client, queueUrl);
    const state = new DynamoDbStateStore({ client: dynamo.client, tableName: TABLE, clock });
    const webhookStore = new DynamoDbWebhookStore({
      client: dynamo.client,
      tableName: TABLE,
      clock: systemClock,
    });
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'customer', POLL_HISTORY_START: '400d', POLL_SETTLE_LAG: '0s' },
      clock.now(),
    );
    const [definition] = streamDefinitions('main', settings);
    const pollDeps: PollDeps = {
      store: state,
      client: connector,
      publisher: new EventBridgePublisher({ client: bus.client, eventBusName: 'bench', clock }),
      clock,
      windows: settings.windows,
      pageCount: settings.pageCount,
    };
    await pollStream(definition!, pollDeps, 'bench');
    const deps = createDispatcherDeps({
      store: webhookStore,
      queue: new SqsDeliveryQueue(sqs.client, queueUrl),
      sender: new UndiciWebhookSender({
        policy: { allowPrivate: true },
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
        clock: systemClock,
      }),
      sink: new MemoryOperationalEventSink(),
      clock: systemClock,
      random: systemRandom,
      // As in AWS: one counter write per stream per batch (backfill progress).
      deliveryCounter: new DynamoDbDeliveryCounter({ client: dynamo.client, tableName: TABLE }),
    });
    const service = createWebhookService({
      ...deps,
      policy: { allowPrivate: true },
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
      randomBytes: systemRandomBytes,
    });
    const { secret } = await service.createSubscription({ url: receiver.url });
    receiver.setSecret(secret);

    const model = sim.controls.model;
    const ids = [...model.customers.all()]
      .filter((entry) => entry.record.IsActive)
      .slice(0, CHANGES)
      .map((entry) => entry.record.Id);
    for (const id of ids) model.update(model.customers, 'customer', id, { Notes: `cost ${id}` });
    await clock.advance(2_000);
    // Only the measured pipeline is counted from here on.
    ddb.commands.clear();
    ddb.readUnits = 0;
    ddb.writeUnits = 0;
    sqsCounts.clear();
    let logBytes = 0;
    deps.logger = {
      warn: (message, fields) => {
        logBytes += JSON.stringify({ message, ...fields }).length;
      },
      error: (message, fields) => {
        logBytes += JSON.stringify({ message, ...fields }).length;
      },
    };

    const pollStarted = performance.now();
    await pollStream(definition!, pollDeps, 'bench');
    const pollerSeconds = (performance.now() - pollStarted) / 1000;
    const pollerDynamo = { ...ddb, commands: new Map(ddb.commands) };

    let dispatcherInvocations = 0;
    let dispatcherSeconds = 0;
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
      dispatcherSeconds += (performance.now() - started) / 1000;
      dispatcherInvocations += 1;
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
    sqsCounts.set('ReceiveMessage', (sqsCounts.get('ReceiveMessage') ?? 0) - 2);
    const events = bus.counts.entries;
    const delivered = receiver.received - receiver.rejected;
    const sqsRequests = [...sqsCounts.values()].reduce((a, b) => a + b, 0);
    const perMillion = (count: number) => (count / events) * 1_000_000;
    const rows: { item: string; counted: string; perEvent: number; dollars: number }[] = [];
    const add = (item: string, counted: string, perEvent: number, dollars: number) =>
      rows.push({ item, counted, perEvent, dollars });
    add(
      'EventBridge PutEvents (64 KB chunks)',
      `${bus.counts.billedChunks} chunks in ${bus.counts.putEventsRequests} requests`,
      bus.counts.billedChunks / events,
      (perMillion(bus.counts.billedChunks) / 1e6) * PRICES.putEventsPerMillion,
    );
    add(
      'EventBridge archive (GB, opt-in)',
      ARCHIVE_ON
        ? `${formatNumber(bus.counts.entryBytes / 1024, 0)} KB`
        : `off by default (would be ${formatNumber(bus.counts.entryBytes / 1024, 0)} KB)`,
      ARCHIVE_ON ? bus.counts.entryBytes / GB / events : 0,
      ARCHIVE_ON ? (perMillion(bus.counts.entryBytes) / GB) * PRICES.archivePerGb : 0,
    );
    add(
      'SQS requests',
      [...sqsCounts].map(([k, v]) => `${k} ${v}`).join(', '),
      sqsRequests / events,
      (perMillion(sqsRequests) / 1e6) * PRICES.sqsPerMillionRequests,
    );
    const dispatchWrites = ddb.writeUnits - pollerDynamo.writeUnits;
    const dispatchReads = ddb.readUnits - pollerDynamo.readUnits;
    add(
      'DynamoDB WRU (poller + dispatcher)',
      `${formatNumber(pollerDynamo.writeUnits, 1)} + ${formatNumber(dispatchWrites, 1)}`,
      ddb.writeUnits / events,
      (perMillion(ddb.writeUnits) / 1e6) * PRICES.dynamoPerMillionWru,
    );
    add(
      'DynamoDB RRU (poller + dispatcher)',
      `${formatNumber(pollerDynamo.readUnits, 1)} + ${formatNumber(dispatchReads, 1)}`,
      ddb.readUnits / events,
      (perMillion(ddb.readUnits) / 1e6) * PRICES.dynamoPerMillionRru,
    );
    const gbSeconds = pollerSeconds * POLLER_GB + dispatcherSeconds * DISPATCHER_GB;
    add(
      'Lambda GB-s (local wall time)',
      `poller ${formatNumber(pollerSeconds, 2)} s x 1 GB, dispatcher ${formatNumber(dispatcherSeconds, 2)} s x 0.5 GB`,
      gbSeconds / events,
      perMillion(gbSeconds) * PRICES.lambdaArmPerGbSecond,
    );
    const invocations = 1 + dispatcherInvocations;
    add(
      'Lambda requests',
      `1 poller + ${dispatcherInvocations} dispatcher`,
      invocations / events,
      (perMillion(invocations) / 1e6) * PRICES.lambdaPerMillionRequests,
    );
    const totalLogBytes =
      logBytes + invocations * LAMBDA_PLATFORM_LOG_BYTES + POLLER_LOG_BYTES_PER_POLL;
    add(
      'CloudWatch Logs (GB)',
      `${formatNumber(totalLogBytes / 1024, 1)} KB`,
      totalLogBytes / GB / events,
      (perMillion(totalLogBytes) / GB) * PRICES.logsPerGb,
    );
    add(
      'Data transfer out (webhook bodies, GB)',
      `${formatNumber(receiver.bytes / 1024, 0)} KB`,
      receiver.bytes / GB / events,
      (perMillion(receiver.bytes) / GB) * PRICES.transferOutPerGb,
    );
    const total = rows.reduce((sum, row) => sum + row.dollars, 0);
    console.log(
      `  ${events} events published, ${delivered} webhooks verified; DynamoDB commands: ` +
        [...ddb.commands].map(([k, v]) => `${k} ${v}`).join(', '),
    );
    console.log(
      renderTable(
        ['item', 'counted in this run', 'per event', '$ per million events'],
        [
          ...rows.map((r) => [r.item, r.counted, r.perEvent.toPrecision(3), r.dollars.toFixed(3)]),
          ['total', '', '', total.toFixed(2)],
        ],
      )
        .split('\n')
        .map((line) => `  ${line}`)
        .join('\n'),
    );
    recordFigure({
      figure: 'AWS cost per million events, one subscriber',
      measured: `$${total.toFixed(2)}`,
      target: '<= $3.00',
      met: total <= 3 && delivered === events,
    });
  } finally {
    await connector.close();
    await receiver.close();
    await sqs.close();
    await dynamo.close();
    await sim.close();
  }
}

if (isMain(import.meta.url)) await run();
