import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { systemClock, systemRandom } from '../shared/clock.ts';
import { createHostResolver } from '../shared/dns/host-resolver.ts';
import { optionalVariable } from '../shared/optional-variable.ts';
import { createDispatchQueuePublisher } from '../shared/publish/dispatch-queue.ts';
import { DEFAULT_EVENT_SOURCE, EventSourceSchema } from '../shared/publish/event-bridge-entry.ts';
import { EventBridgePublisher } from '../shared/publish/event-bridge-publisher.ts';
import { MultiPublisher } from '../shared/publish/multi-publisher.ts';
import { PublisherOperationalSink } from '../shared/publish/publisher-operational-sink.ts';
import type { RetryOptions } from '../shared/publish/retry-backoff.ts';
import { createDispatcherDeps, type DispatcherDeps } from '../shared/webhooks/dispatcher-deps.ts';
import { DispatcherEnvSchema, dispatcherSettings } from '../shared/webhooks/dispatcher-env.ts';
import { DynamoDbDeliveryCounter } from '../shared/webhooks/dynamodb-delivery-counter.ts';
import { DynamoDbEndpointSlots } from '../shared/webhooks/dynamodb-endpoint-slots.ts';
import { DynamoDbWebhookStore } from '../shared/webhooks/dynamodb-store.ts';
import { DynamoDbWaitingLedger } from '../shared/webhooks/dynamodb-waiting-ledger.ts';
import { EndpointScheduler } from '../shared/webhooks/endpoint-scheduler.ts';
import { UndiciWebhookSender } from '../shared/webhooks/http-sender.ts';
import { LaneRoutingDeliveryQueue } from '../shared/webhooks/lane-routing-delivery-queue.ts';
import type { DispatchMetrics } from '../shared/webhooks/metrics.ts';
import { type DeliveryQueue, SqsDeliveryQueue } from '../shared/webhooks/queue.ts';

/** Variables of the Lambdas that work on webhooks (dispatcher, admin API); set by infra/. */
export const WebhookLambdaEnvSchema = z.object({
  STATE_TABLE_NAME: z.string().min(1),
  // Not z.url(): local emulators hand out queue URLs (`sqs.us-east-1.127.0.0.1`) that WHATWG rejects.
  DISPATCH_QUEUE_URL: z.string().min(1),
  /**
   * Where delivery messages (retries, deferrals, replays) go when the dispatch queues are FIFO
   * (they have no per-message delay); absent: the dispatch queue itself.
   */
  DISPATCH_RETRY_QUEUE_URL: optionalVariable(z.string().min(1)),
  /** The bulk dispatch queue's ARN: the dispatcher tells its batches by their source. */
  BULK_DISPATCH_QUEUE_ARN: optionalVariable(z.string().min(1)),
  /**
   * The bulk dispatch queue: where a backfill's delivery messages (retries, deferrals) go when
   * the dispatch queues are standard ones (see deliveryQueueOf); absent: the dispatch queue.
   */
  BULK_DISPATCH_QUEUE_URL: optionalVariable(z.string().min(1)),
  EVENT_BUS_NAME: z.string().min(1),
  EVENT_SOURCE: EventSourceSchema.default(DEFAULT_EVENT_SOURCE),
  WEBHOOK_ALLOW_PRIVATE: z
    .enum(['true', 'false', '1', '0', ''])
    .default('false')
    .transform((value) => value === 'true' || value === '1'),
  ...DispatcherEnvSchema.shape,
});

/** Parsed {@link WebhookLambdaEnvSchema}. */
export type WebhookLambdaEnv = z.output<typeof WebhookLambdaEnvSchema>;

/**
 * The dispatcher's dependencies on AWS. On the state table: the webhook store, the delivery
 * counter, the endpoints' slots (each container holds a share of an endpoint's concurrency, so
 * the limit holds across the containers) and the waiting ledger (a subject's later event waits
 * for an earlier one's retry whichever container has it). The queues of delivery messages (see
 * deliveryQueueOf), the undici sender with the SSRF policy, and operational events to the
 * dispatch queue (for subscribers) and to the bus (for rules; they are rare, so every one is
 * put, matched or not).
 */
export function buildWebhookDeps(
  env: WebhookLambdaEnv,
  dynamo: DynamoDBClient,
  metrics?: DispatchMetrics,
  /** Retries of the operational events' publishers (default PUBLISH_RETRY_OPTIONS). */
  retry?: Partial<RetryOptions>,
): DispatcherDeps {
  const sqs = new SQSClient({});
  const operationalEvents = new MultiPublisher([
    createDispatchQueuePublisher({
      client: sqs,
      queueUrl: env.DISPATCH_QUEUE_URL,
      source: env.EVENT_SOURCE,
      ...(retry ? { retry } : {}),
    }),
    new EventBridgePublisher({
      client: new EventBridgeClient({}),
      eventBusName: env.EVENT_BUS_NAME,
      source: env.EVENT_SOURCE,
      ...(retry ? { retry } : {}),
    }),
  ]);
  const settings = dispatcherSettings(env);
  return createDispatcherDeps({
    ...(metrics ? { metrics } : {}),
    config: settings.config,
    store: new DynamoDbWebhookStore({
      client: dynamo,
      tableName: env.STATE_TABLE_NAME,
      clock: systemClock,
    }),
    deliveryCounter: new DynamoDbDeliveryCounter({
      client: dynamo,
      tableName: env.STATE_TABLE_NAME,
    }),
    scheduler: new EndpointScheduler(
      systemClock,
      new DynamoDbEndpointSlots({
        client: dynamo,
        tableName: env.STATE_TABLE_NAME,
        clock: systemClock,
        random: systemRandom,
      }),
    ),
    waitingLedger: new DynamoDbWaitingLedger({ client: dynamo, tableName: env.STATE_TABLE_NAME }),
    queue: deliveryQueueOf(env, sqs),
    sender: new UndiciWebhookSender({
      policy: { allowPrivate: env.WEBHOOK_ALLOW_PRIVATE },
      resolve: createHostResolver().resolve,
      clock: systemClock,
      timeoutMs: settings.deliveryTimeoutMs,
    }),
    sink: new PublisherOperationalSink(operationalEvents),
  });
}

/**
 * Where delivery messages go: beside FIFO dispatch queues, the retry queue (a FIFO queue has no
 * per-message delay); else a backfill's (`lane: 'bulk'`) to the bulk dispatch queue, read by its
 * own, fewer containers as bulk work, and the others to the dispatch queue. A backfill's
 * deliveries waiting at an endpoint that sheds load then never fill the live containers and
 * hold live changes behind them; one a live change waits behind is sent ahead (see
 * DispatchBatch.notBefore).
 */
function deliveryQueueOf(env: WebhookLambdaEnv, sqs: SQSClient): DeliveryQueue {
  if (env.DISPATCH_RETRY_QUEUE_URL !== undefined)
    return new SqsDeliveryQueue(sqs, env.DISPATCH_RETRY_QUEUE_URL);
  const live = new SqsDeliveryQueue(sqs, env.DISPATCH_QUEUE_URL);
  if (env.BULK_DISPATCH_QUEUE_URL === undefined) return live;
  return new LaneRoutingDeliveryQueue(live, new SqsDeliveryQueue(sqs, env.BULK_DISPATCH_QUEUE_URL));
}
