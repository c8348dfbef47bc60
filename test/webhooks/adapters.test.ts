import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import type { FauxqsServer } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { LOCAL_CREDENTIALS } from '../../shared/local/local-credentials.ts';
import { endpointOfUrl } from '../../shared/webhooks/endpoint-of-url.ts';
import {
  buildOperationalEvent,
  EventBridgeOperationalEventSink,
} from '../../shared/webhooks/operational-events.ts';
import { SqsDeliveryQueue, WAITS_IN_LINE_ATTRIBUTE } from '../../shared/webhooks/queue.ts';
import { changeEvent, envelope, eventIdOf } from './support/harness.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';
import { type LocalSqs, startLocalSqs } from './support/local-sqs.ts';
import { startReceiver } from './support/receiver.ts';

/** Puts the environment back as it was (keys added since are removed). */
function restoreEnv(saved: NodeJS.ProcessEnv): void {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
}

let local: LocalSqs;
let sqsServer: FauxqsServer;
let table: LocalTable;
let sqs: SQSClient;
beforeAll(async () => {
  local = await startLocalSqs();
  sqsServer = local.server;
  sqs = local.client;
  table = await startLocalTable('webhooks-handler');
});
afterAll(async () => {
  await table.stop();
  await local.stop();
});

async function receiveAll(queueUrl: string): Promise<{ messageId: string; body: string }[]> {
  const result = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
  );
  return (result.Messages ?? []).map((m) => ({ messageId: m.MessageId ?? '', body: m.Body ?? '' }));
}

describe('SqsDeliveryQueue (fauxqs)', () => {
  it('sends delivery messages, holding delayed ones back', async () => {
    const { queueUrl } = sqsServer.createQueue('delivery-queue-test');
    const queue = new SqsDeliveryQueue(sqs, queueUrl);
    await queue.send({ kind: 'delivery', deliveryId: 'dlv_now' }, 0);
    await queue.send({ kind: 'delivery', deliveryId: 'dlv_later' }, 60);
    const received = await receiveAll(queueUrl);
    expect(received.map((m) => JSON.parse(m.body))).toEqual([
      { kind: 'delivery', deliveryId: 'dlv_now' },
    ]);
  });

  it("marks a delivery deferred for its turn in a slow endpoint's line with an attribute", async () => {
    const { queueUrl } = sqsServer.createQueue('delivery-queue-in-line');
    const queue = new SqsDeliveryQueue(sqs, queueUrl);
    const failed = await queue.sendBatch([
      { message: { kind: 'delivery', deliveryId: 'dlv_retry' }, delaySeconds: 0 },
      // A bulk delivery's retry keeps its lane, but waits for its retry time, not in a line.
      {
        message: { kind: 'delivery', deliveryId: 'dlv_bulk_retry', lane: 'bulk' },
        delaySeconds: 0,
      },
      {
        message: { kind: 'delivery', deliveryId: 'dlv_in_line', lane: 'live' },
        delaySeconds: 0,
        waitsInLine: true,
      },
    ]);
    expect(failed).toEqual([]);
    const result = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
      }),
    );
    const marks = Object.fromEntries(
      (result.Messages ?? []).map((m) => [
        JSON.parse(m.Body ?? '{}').deliveryId,
        m.MessageAttributes?.[WAITS_IN_LINE_ATTRIBUTE]?.StringValue,
      ]),
    );
    expect(marks).toEqual({ dlv_retry: undefined, dlv_bulk_retry: undefined, dlv_in_line: 'line' });
  });
});

describe('EventBridgeOperationalEventSink', () => {
  it('puts one entry with the configured bus and source, the type as detail-type', async () => {
    const mock = mockClient(EventBridgeClient);
    mock.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] });
    const sink = new EventBridgeOperationalEventSink(
      new EventBridgeClient({ region: 'us-east-1' }),
      'bus',
      'change-bridge',
    );
    const event = buildOperationalEvent(
      'delivery.failing',
      'sub_1',
      { consecutiveFailures: 4 },
      new ManualClock(),
    );
    await sink.publish(event);
    const [call] = mock.commandCalls(PutEventsCommand);
    expect(call?.args[0].input.Entries).toEqual([
      {
        EventBusName: 'bus',
        Source: 'change-bridge',
        DetailType: 'delivery.failing',
        Detail: JSON.stringify(event),
        Time: new Date(event.time),
      },
    ]);
    mock
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'ThrottlingException' }] });
    await expect(sink.publish(event)).rejects.toMatchObject({ retryable: true });
    mock.restore();
  });
});

describe('SqsDeliveryQueue.sendBatch (fauxqs)', () => {
  it('sends more than one request holds, each message with its own delay', async () => {
    const { queueUrl } = sqsServer.createQueue('delivery-batch-test');
    const queue = new SqsDeliveryQueue(sqs, queueUrl);
    const entries = Array.from({ length: 12 }, (_, i) => ({
      message: { kind: 'delivery' as const, deliveryId: `dlv_${i}`, subscriptionId: 'sub_1' },
      delaySeconds: i === 11 ? 60 : 0,
    }));
    expect(await queue.sendBatch(entries)).toEqual([]);
    const received = [...(await receiveAll(queueUrl)), ...(await receiveAll(queueUrl))];
    expect(received.map((m) => JSON.parse(m.body).deliveryId).sort()).toEqual(
      Array.from({ length: 11 }, (_, i) => `dlv_${i}`).sort(),
    );
  });

  it('sends a subject holding characters SQS refuses raw (U+FFFE, U+FFFF) as JSON escapes', async () => {
    // A subject is an entity id (a tax environment's Code, a record's Id): SQS refuses a body
    // holding U+FFFE or U+FFFF for good, and JSON.stringify leaves them raw.
    const { queueUrl } = sqsServer.createQueue('delivery-batch-characters');
    const queue = new SqsDeliveryQueue(sqs, queueUrl);
    const message = {
      kind: 'delivery' as const,
      deliveryId: 'dlv_odd',
      subscriptionId: 'sub_1',
      subject: 'AT\uFFFE-\uFFFF',
    };
    expect(await queue.sendBatch([{ message, delaySeconds: 0 }])).toEqual([]);
    await queue.send({ ...message, deliveryId: 'dlv_odd_retry' }, 0);
    const received = [...(await receiveAll(queueUrl)), ...(await receiveAll(queueUrl))];
    expect(
      received
        .map((m) => JSON.parse(m.body))
        .sort((a, b) => (a.deliveryId < b.deliveryId ? -1 : 1)),
    ).toEqual([message, { ...message, deliveryId: 'dlv_odd_retry' }]);
  });

  it('reports every entry of a request that failed as unsent', async () => {
    const queue = new SqsDeliveryQueue(
      sqs,
      `http://127.0.0.1:${sqsServer.port}/000000000000/missing`,
    );
    const entry = { message: { kind: 'delivery' as const, deliveryId: 'dlv_x' }, delaySeconds: 0 };
    expect(await queue.sendBatch([entry, entry])).toEqual([0, 1]);
  });
});

const BULK_ARN = 'arn:aws:sqs:us-east-1:000000000000:bulk-dispatch';

/** A Lambda context with `remainingMs` left, as the invocation starts. */
function contextWith(remainingMs: number) {
  const end = Date.now() + remainingMs;
  return { getRemainingTimeInMillis: () => end - Date.now() };
}

/** The dispatcher's default timeout (infra/props.ts). */
const FULL_TIME = contextWith(180_000);

describe('functions/dispatcher handler', () => {
  it('fails fast naming a missing environment variable', async () => {
    const saved = { ...process.env };
    delete process.env.STATE_TABLE_NAME;
    const { handler } = await import('../../functions/dispatcher.ts');
    await expect(handler({ Records: [] }, FULL_TIME)).rejects.toThrow(/STATE_TABLE_NAME/);
    restoreEnv(saved);
  });

  it('fans out and delivers through DynamoDB and SQS with a partial batch response', async () => {
    const receiver = await startReceiver();
    const { queueUrl } = sqsServer.createQueue('dispatch-handler-test');
    const { queueUrl: bulkQueueUrl } = sqsServer.createQueue('bulk-dispatch-handler-test');
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      // The local store answers only clients signed with this process's local credential.
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${(await table.client.config.endpoint?.())?.port}`,
      AWS_ENDPOINT_URL_SQS: `http://127.0.0.1:${sqsServer.port}`,
      STATE_TABLE_NAME: table.tableName,
      DISPATCH_QUEUE_URL: queueUrl,
      EVENT_BUS_NAME: 'bus',
      EVENT_SOURCE: 'change-bridge',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      DELIVERY_TIMEOUT_MS: '2000',
      BULK_DISPATCH_QUEUE_ARN: BULK_ARN,
      BULK_DISPATCH_QUEUE_URL: bulkQueueUrl,
    });
    try {
      const { DynamoDbWebhookStore } = await import('../../shared/webhooks/dynamodb-store.ts');
      const { createWebhookService } = await import('../../shared/webhooks/service.ts');
      const { createDispatcherDeps } = await import('../../shared/webhooks/dispatcher-deps.ts');
      const { DynamoDbEndpointSlots } = await import(
        '../../shared/webhooks/dynamodb-endpoint-slots.ts'
      );
      const clock = new ManualClock(Date.now());
      const store = new DynamoDbWebhookStore({
        client: table.client,
        tableName: table.tableName,
        clock,
      });
      const admin = createWebhookService({
        ...createDispatcherDeps({
          store,
          queue: new SqsDeliveryQueue(sqs, queueUrl),
          sender: {
            send: async () => ({
              kind: 'error',
              error: 'network',
              message: 'unused',
              latencyMs: 0,
            }),
          },
          sink: { publish: async () => {} },
          clock,
        }),
        policy: { allowPrivate: true },
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
        randomBytes: (size) => new Uint8Array(size).fill(9),
      });
      const { subscription, secret } = await admin.createSubscription({
        url: receiver.url('/lambda'),
      });
      receiver.secrets.set('/lambda', [secret]);

      const { handler } = await import('../../functions/dispatcher.ts');
      const toSqsEvent = (
        messages: { messageId: string; body: string }[],
        eventSourceARN = 'arn:aws:sqs:us-east-1:000000000000:dispatch',
      ): SQSEvent => ({
        Records: messages.map((m) => ({
          messageId: m.messageId,
          receiptHandle: 'r',
          body: m.body,
          attributes: {
            ApproximateReceiveCount: '1',
            SentTimestamp: '0',
            SenderId: 'x',
            ApproximateFirstReceiveTimestamp: '0',
          },
          messageAttributes: {},
          md5OfBody: '',
          eventSource: 'aws:sqs',
          eventSourceARN,
          awsRegion: 'us-east-1',
        })),
      });
      const fanOut = await handler(
        toSqsEvent([
          { messageId: 'env-1', body: envelope(changeEvent(eventIdOf(90))) },
          { messageId: 'bad-1', body: '{"broken":' },
        ]),
        FULL_TIME,
      );
      expect(fanOut).toEqual({ batchItemFailures: [] });
      // The first attempt is made inline at fan-out: delivered, nothing left on the queue.
      expect(receiver.log.map((r) => [r.headers['webhook-id'], r.verifiedWith])).toEqual([
        [eventIdOf(90), 1],
      ]);
      expect(await receiveAll(queueUrl)).toEqual([]);
      // The invocation gave its share of the endpoint's slots back before it returned.
      const otherContainer = new DynamoDbEndpointSlots({
        client: table.client,
        tableName: table.tableName,
        clock,
        random: () => 0.5,
      });
      expect((await otherContainer.hold(endpointOfUrl(subscription.url), 16, 16)).slots).toBe(16);
      await otherContainer.hold(endpointOfUrl(subscription.url), 0, 16);
      // A replay goes through a delivery message, handled by the same handler.
      await admin.replayEvent(eventIdOf(90));
      const deliveryMessages = await receiveAll(queueUrl);
      expect(deliveryMessages).toHaveLength(1);
      expect(await handler(toSqsEvent(deliveryMessages), FULL_TIME)).toEqual({
        batchItemFailures: [],
      });
      expect(receiver.log.map((r) => [r.headers['webhook-id'], r.verifiedWith])).toEqual([
        [eventIdOf(90), 1],
        [eventIdOf(90), 1],
      ]);
      // Batches of the bulk dispatch queue are counted per stream as handled; others are not.
      const { DynamoDbBulkLaneLedger } = await import(
        '../../shared/publish/dynamodb-bulk-lane-ledger.ts'
      );
      const ledger = new DynamoDbBulkLaneLedger({
        client: table.client,
        tableName: table.tableName,
        clock,
      });
      await ledger.queued(new Map([['main:customer', 1]]));
      const liveBatch = [{ messageId: 'env-2', body: envelope(changeEvent(eventIdOf(91))) }];
      expect(await handler(toSqsEvent(liveBatch), FULL_TIME)).toEqual({ batchItemFailures: [] });
      expect(await ledger.pending(['main:customer'])).toEqual(new Set(['main:customer']));
      const bulkBatch = [{ messageId: 'env-3', body: envelope(changeEvent(eventIdOf(92))) }];
      expect(await handler(toSqsEvent(bulkBatch, BULK_ARN), FULL_TIME)).toEqual({
        batchItemFailures: [],
      });
      expect(await ledger.pending(['main:customer'])).toEqual(new Set());
      // A bulk batch's delivery that fails waits for its retry in the bulk queue (bulk work
      // there), not in the dispatch queue the live containers read.
      const down = await startReceiver(() => ({ kind: 'respond', status: 500 }));
      try {
        const failing = await admin.createSubscription({ url: down.url('/down') });
        down.secrets.set('/down', [failing.secret]);
        const backfilled = [{ messageId: 'env-4', body: envelope(changeEvent(eventIdOf(93))) }];
        expect(await handler(toSqsEvent(backfilled, BULK_ARN), FULL_TIME)).toEqual({
          batchItemFailures: [],
        });
        expect(down.log.map((r) => [r.headers['webhook-id'], r.verifiedWith])).toEqual([
          [eventIdOf(93), 1],
        ]);
        const waiting = (name: string) =>
          sqsServer.inspectQueue(name)?.messages.delayed.map(({ body }) => JSON.parse(body));
        expect(waiting('bulk-dispatch-handler-test')).toMatchObject([
          { kind: 'delivery', lane: 'bulk', subscriptionId: failing.subscription.id },
        ]);
        expect(waiting('dispatch-handler-test')).toEqual([]);
        await admin.removeSubscription(failing.subscription.id);
      } finally {
        await down.close();
      }

      // An invocation near its timeout starts no request after its deadline (one request's
      // timeout, DELIVERY_TIMEOUT_MS, and 10 s of writes before its end): what is left of a
      // subject's chain is deferred, in order, and sent once by the next invocations.
      const slow = await startReceiver(() => ({ kind: 'respond', status: 200, delayMs: 300 }));
      try {
        const created = await admin.createSubscription({ url: slow.url('/slow') });
        slow.secrets.set('/slow', [created.secret]);
        const chain = Array.from({ length: 6 }, (_, n) => ({
          messageId: `chain-${n}`,
          body: envelope(changeEvent(eventIdOf(100 + n), { subject: 'c-chain' })),
        }));
        const deadline = Date.now() + 700;
        const nearEnd = { getRemainingTimeInMillis: () => deadline - Date.now() + 2_000 + 10_000 };
        expect(await handler(toSqsEvent(chain), nearEnd)).toEqual({ batchItemFailures: [] });
        const sent = slow.log.length;
        expect(sent).toBeGreaterThan(0);
        expect(sent).toBeLessThan(chain.length);
        // Logged on arrival: a request started just before the deadline arrives a moment after.
        for (const request of slow.log) expect(request.at).toBeLessThan(deadline + 250);
        for (let round = 0; round < 30 && slow.log.length < chain.length; round++) {
          await new Promise((resolve) => setTimeout(resolve, 500));
          const messages = await receiveAll(queueUrl);
          if (messages.length > 0)
            expect(await handler(toSqsEvent(messages), FULL_TIME)).toEqual({
              batchItemFailures: [],
            });
        }
        expect(slow.log.map((r) => r.headers['webhook-id'])).toEqual(
          chain.map((_, n) => eventIdOf(100 + n)),
        );
      } finally {
        await slow.close();
      }
    } finally {
      restoreEnv(saved);
      await receiver.close();
    }
  });
});
