import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { systemClock } from '../shared/clock.ts';
import { loadConnectionSecret } from '../shared/connector/connection-secrets.ts';
import {
  type ConnectorClient,
  createConnectorClient,
} from '../shared/connector/connector-client.ts';
import { parseOrThrow } from '../shared/errors.ts';
import { PollJobSchema } from '../shared/polling/poll-job.ts';
import { pollStream } from '../shared/polling/poll-stream.ts';
import { EmfPublishMetrics } from '../shared/publish/emf-publish-metrics.ts';
import { createPublisher, parsePublisherConfig } from '../shared/publish/publisher-config.ts';
import { DynamoDbGrantLedger } from '../shared/state/dynamodb-grant-ledger.ts';
import { DynamoDbStateStore } from '../shared/state/dynamodb-state-store.ts';
import { readPollLambdaEnv } from './poll-env.ts';

/** Stop starting pages this long before the Lambda timeout, so state is saved in time. */
const DEADLINE_MARGIN_MS = 30_000;

const logger = new Logger();
const metrics = new Metrics();
const config = readPollLambdaEnv(process.env, systemClock.now());
const dynamoDb = new DynamoDBClient({});
const store = new DynamoDbStateStore({ client: dynamoDb, tableName: config.tableName });
// Every invocation of every poller takes its grants from the token's item in the state table:
// concurrent invocations polling one connection's streams share one budget.
const budgetLedger = new DynamoDbGrantLedger(dynamoDb, config.tableName);
const publisher = createPublisher(parsePublisherConfig(process.env), {
  eventBridgeClient: new EventBridgeClient({}),
  sqsClient: new SQSClient({}),
  metrics: new EmfPublishMetrics(metrics),
  onRulesError: (error) =>
    logger.warn('listing the bus rules failed: every event goes to the bus until the next try', {
      error: error as Error,
    }),
});
const secrets = new SecretsManagerClient({});
const clients = new Map<string, Promise<ConnectorClient>>();

function clientFor(connectionId: string): Promise<ConnectorClient> {
  let client = clients.get(connectionId);
  if (!client) {
    const arn = config.secretArns[connectionId]!;
    client = loadConnectionSecret(secrets, arn).then((connection) =>
      createConnectorClient(connection, {
        budgetLedger,
        budgetMarginMs: config.settings.budgetMarginMs,
      }),
    );
    client.catch(() => clients.delete(connectionId));
    clients.set(connectionId, client);
  }
  return client;
}

/**
 * Poll-job consumer: one message per due stream. Connector failures are recorded on the
 * stream (backoff, parking) and the message succeeds; anything else (state store, publish)
 * is reported as a batch item failure so SQS redelivers the job.
 */
export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const job = parseOrThrow(PollJobSchema, JSON.parse(record.body), 'poll job');
      const definition = config.definitions.find(
        (candidate) => candidate.streamId === job.streamId,
      );
      if (!definition) {
        logger.warn('poll job for an unknown stream', { streamId: job.streamId });
        continue;
      }
      const outcome = await pollStream(
        definition,
        {
          store,
          client: await clientFor(definition.connectionId),
          publisher,
          clock: systemClock,
          windows: config.settings.windows,
          pageCount: config.settings.pageCount,
          deadline: systemClock.now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS,
        },
        context.awsRequestId,
      );
      logger.info('poll finished', { ...outcome });
      if (outcome.kind === 'failed') metrics.addMetric('PollFailures', MetricUnit.Count, 1);
      const state = await store.getStream(definition.streamId);
      if (state?.watermark) {
        metrics
          .singleMetric()
          .addDimensions({ Stream: definition.streamId })
          .addMetric(
            'WatermarkAgeSeconds',
            MetricUnit.Seconds,
            (systemClock.now() - Date.parse(state.watermark)) / 1000,
          );
      }
    } catch (error) {
      logger.error('poll job failed', { error: error as Error, messageId: record.messageId });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  metrics.publishStoredMetrics();
  return { batchItemFailures: failures };
};
