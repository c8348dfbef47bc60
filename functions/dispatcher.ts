import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { systemClock } from '../shared/clock.ts';
import { parseEnvironment } from '../shared/env-issues.ts';
import { DynamoDbBulkLaneLedger } from '../shared/publish/dynamodb-bulk-lane-ledger.ts';
import { processLaneBatch } from '../shared/webhooks/bulk-lane-batch.ts';
import { dispatchDeadline } from '../shared/webhooks/dispatch-deadline.ts';
import type { DispatcherDeps } from '../shared/webhooks/dispatcher-deps.ts';
import { EmfDispatchMetrics } from '../shared/webhooks/emf-dispatch-metrics.ts';
import { keepGroupOrder } from '../shared/webhooks/fifo-group-order.ts';
import { sanitizingEscapes } from './handler-boundary.ts';
import { buildWebhookDeps, WebhookLambdaEnvSchema } from './webhook-deps.ts';

let deps: DispatcherDeps | undefined;
/** The webhook request timeout (DELIVERY_TIMEOUT_MS): a request started before the deadline may take it. */
let deliveryTimeoutMs = 0;
/** The bulk dispatch queue (when the stack has one) and where its handled events are counted. */
let bulkLane: { arn: string; ledger: DynamoDbBulkLaneLedger } | undefined;
const metrics = new Metrics();

/**
 * SQS-triggered dispatcher (report batch item failures must be on in the event source
 * mapping), of the dispatch queue or of the bulk one (bulk work's events and a backfill's
 * waiting deliveries: its batches run behind live work, and their events are counted per
 * stream: see processLaneBatch). Before it returns, it gives back the
 * endpoints' slots it held for the batch. It starts no request after its deadline (see
 * dispatchDeadline: one request's timeout and the batch's writes before the invocation's
 * timeout), deferring what is left a moment instead: an invocation killed at its timeout would
 * lose the outcome of every attempt of its batch, sent again when SQS hands the batch back.
 * Dependencies are built on the first invocation and reused while warm; a missing variable
 * fails fast, named.
 */
const dispatch = async (
  event: SQSEvent,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<SQSBatchResponse> => {
  if (!deps) {
    const env = parseEnvironment(WebhookLambdaEnvSchema, process.env);
    deliveryTimeoutMs = env.DELIVERY_TIMEOUT_MS;
    const dynamo = new DynamoDBClient({});
    deps = buildWebhookDeps(env, dynamo, new EmfDispatchMetrics(metrics));
    if (env.BULK_DISPATCH_QUEUE_ARN !== undefined)
      bulkLane = {
        arn: env.BULK_DISPATCH_QUEUE_ARN,
        ledger: new DynamoDbBulkLaneLedger({
          client: dynamo,
          tableName: env.STATE_TABLE_NAME,
          clock: systemClock,
        }),
      };
  }
  const current = deps;
  const deadline = dispatchDeadline(
    current.clock.now(),
    context.getRemainingTimeInMillis(),
    deliveryTimeoutMs,
  );
  // An event source mapping hands over the records of one queue: the bulk one, or the other.
  const lane = bulkLane && event.Records[0]?.eventSourceARN === bulkLane.arn ? 'bulk' : 'live';
  try {
    // From FIFO dispatch queues, a group's records after a failed one come back with it (and
    // are counted in the bulk lane's ledger then, not now).
    return await processLaneBatch(
      event.Records,
      current,
      lane,
      bulkLane?.ledger,
      (response) => keepGroupOrder(event.Records, response),
      deadline,
    );
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

/** The Lambda entry point: {@link dispatch}, with what escapes it sanitized (see sanitizingEscapes). */
export const handler = sanitizingEscapes(dispatch);
