import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseOrThrow } from '../shared/errors.ts';
import { processDispatchBatch } from '../shared/webhooks/dispatcher.ts';
import type { DispatcherDeps } from '../shared/webhooks/dispatcher-deps.ts';
import { EmfDispatchMetrics } from '../shared/webhooks/emf-dispatch-metrics.ts';
import { buildWebhookDeps, WebhookLambdaEnvSchema } from './webhook-deps.ts';

let deps: DispatcherDeps | undefined;
const metrics = new Metrics();

/**
 * SQS-triggered dispatcher (report batch item failures must be on in the event source
 * mapping). Before it returns, it gives back the endpoints' slots it held for the batch. Dependencies are built on the first invocation and reused while warm; a missing
 * variable fails fast, named.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  deps ??= buildWebhookDeps(
    parseOrThrow(WebhookLambdaEnvSchema, process.env, 'environment'),
    new DynamoDBClient({}),
    new EmfDispatchMetrics(metrics),
  );
  const current = deps;
  try {
    return await processDispatchBatch(event.Records, current);
  } finally {
    // A frozen container would hold its share of the endpoints' slots until it lapses.
    await current.scheduler.releaseIdleSlots().catch((error: unknown) => {
      current.logger.warn('could not give back endpoint slots (they lapse on their own)', {
        error: error instanceof Error ? error.message : String(error),
      });
    });
    metrics.publishStoredMetrics();
  }
};
