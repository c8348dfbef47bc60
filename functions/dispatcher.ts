import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { systemClock } from '../shared/clock.ts';
import { parseOrThrow } from '../shared/errors.ts';
import { processDispatchBatch } from '../shared/webhooks/dispatcher.ts';
import { createDispatcherDeps, type DispatcherDeps } from '../shared/webhooks/dispatcher-deps.ts';
import { DynamoDbWebhookStore } from '../shared/webhooks/dynamodb-store.ts';
import { EmfDispatchMetrics } from '../shared/webhooks/emf-dispatch-metrics.ts';
import { DELIVERY_TIMEOUT_MS, UndiciWebhookSender } from '../shared/webhooks/http-sender.ts';
import { EventBridgeOperationalEventSink } from '../shared/webhooks/operational-events.ts';
import { SqsDeliveryQueue } from '../shared/webhooks/queue.ts';
import { systemResolver } from '../shared/webhooks/url-policy.ts';

/** The dispatcher's environment, parsed once per cold start. */
const DispatcherEnvSchema = z.object({
  STATE_TABLE_NAME: z.string().min(1),
  // Not z.url(): local emulators hand out queue URLs (`sqs.us-east-1.127.0.0.1`) that WHATWG rejects.
  DISPATCH_QUEUE_URL: z.string().min(1),
  EVENT_BUS_NAME: z.string().min(1),
  EVENT_SOURCE: z.string().min(1).default('change-bridge'),
  WEBHOOK_ALLOW_PRIVATE: z
    .enum(['true', 'false', '1', '0', ''])
    .default('false')
    .transform((value) => value === 'true' || value === '1'),
  DELIVERY_TIMEOUT_MS: z.coerce.number().int().positive().max(60_000).default(DELIVERY_TIMEOUT_MS),
});

let deps: DispatcherDeps | undefined;
const metrics = new Metrics();

function buildDeps(): DispatcherDeps {
  const env = parseOrThrow(DispatcherEnvSchema, process.env, 'environment');
  return createDispatcherDeps({
    metrics: new EmfDispatchMetrics(metrics),
    store: new DynamoDbWebhookStore({
      client: new DynamoDBClient({}),
      tableName: env.STATE_TABLE_NAME,
      clock: systemClock,
    }),
    queue: new SqsDeliveryQueue(new SQSClient({}), env.DISPATCH_QUEUE_URL),
    sender: new UndiciWebhookSender({
      policy: { allowPrivate: env.WEBHOOK_ALLOW_PRIVATE },
      resolve: systemResolver,
      clock: systemClock,
      timeoutMs: env.DELIVERY_TIMEOUT_MS,
    }),
    sink: new EventBridgeOperationalEventSink(
      new EventBridgeClient({}),
      env.EVENT_BUS_NAME,
      env.EVENT_SOURCE,
    ),
  });
}

/**
 * SQS-triggered dispatcher (report batch item failures must be on in the event source
 * mapping). Dependencies are built on the first invocation and reused while warm.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  deps ??= buildDeps();
  try {
    return await processDispatchBatch(event.Records, deps);
  } finally {
    metrics.publishStoredMetrics();
  }
};
