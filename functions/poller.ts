import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { systemClock } from '../shared/clock.ts';
import { splitStreamId } from '../shared/connections/connection.ts';
import { watchConnection } from '../shared/connections/connection-watch.ts';
import { DynamoDbConnectionStore } from '../shared/connections/dynamodb-connection-store.ts';
import { parseOrThrow } from '../shared/errors.ts';
import {
  CredentialsNotStoredError,
  recordCredentialsNotStored,
} from '../shared/polling/credentials-not-stored.ts';
import { pollDeadline, reportsWatermarkAge } from '../shared/polling/invocation-deadline.ts';
import { OverlapMemory } from '../shared/polling/overlap-memory.ts';
import { pollConnectionStreams } from '../shared/polling/poll-connection.ts';
import { PollJobSchema } from '../shared/polling/poll-job.ts';
import { runPurgeJob } from '../shared/polling/purge-job.ts';
import {
  ConnectionUnopenedError,
  recordUnopenedConnection,
} from '../shared/polling/unopened-connection.ts';
import { DynamoDbBulkLaneLedger } from '../shared/publish/dynamodb-bulk-lane-ledger.ts';
import { EmfPublishMetrics } from '../shared/publish/emf-publish-metrics.ts';
import { describeRefusal, ObservedPublisher } from '../shared/publish/observed-publisher.ts';
import { createPublisher, parsePublisherConfig } from '../shared/publish/publisher-config.ts';
import { DynamoDbStateStore } from '../shared/state/dynamodb-state-store.ts';
import { createConnectionClients } from './connection-clients.ts';
import { ConnectorRequestTally, reportConnectorUse } from './connector-use.ts';
import { sanitizingEscapes } from './handler-boundary.ts';
import { loggableThrown } from './loggable-thrown.ts';
import { type PollLambdaConfig, readPollLambdaEnv } from './poll-env.ts';
import {
  isParked,
  reportOldestWatermarkAge,
  reportParkedStreams,
  reportPollOutcome,
} from './poll-outcome-report.ts';

const logger = new Logger();
const metrics = new Metrics();
/** What a poller container builds from its environment once, on its first invocation. */
interface PollerDeps {
  config: PollLambdaConfig;
  store: DynamoDbStateStore;
  publisher: ObservedPublisher;
  connectionStore: DynamoDbConnectionStore;
  connections: ReturnType<typeof createConnectionClients>;
  /**
   * Lives as long as the container: a window is passed over only from the watermark this
   * container's last window of the stream committed, so another container's polls in between
   * disable it.
   */
  overlapMemory: OverlapMemory;
  /** The connector requests of each job (one invocation at a time per container), for its metrics. */
  connectorRequests: ConnectorRequestTally;
}

/**
 * The poller's dependencies from `env`. Called inside the handler wrapper (not at module load),
 * so a malformed variable fails the invocation as a ValidationError naming it, sanitized by
 * sanitizingEscapes, instead of escaping as the runtime's raw `Runtime.ImportModuleError`.
 */
function buildPollerDeps(env: Record<string, string | undefined>): PollerDeps {
  const config = readPollLambdaEnv(env, systemClock.now());
  const dynamoDb = new DynamoDBClient({});
  const store = new DynamoDbStateStore({ client: dynamoDb, tableName: config.tableName });
  // An event refused for good (too large even thin) carries a change no target takes: an error
  // in the log beside the PublishFailed metric, never a silent loss.
  const publisher = new ObservedPublisher(
    createPublisher(parsePublisherConfig(env), {
      eventBridgeClient: new EventBridgeClient({}),
      sqsClient: new SQSClient({}),
      // Bulk work's events wait in a dispatch queue of their own; a stream's live events join
      // them while it has some on their way (the counts in the table).
      bulkLaneLedger: new DynamoDbBulkLaneLedger({
        client: dynamoDb,
        tableName: config.tableName,
        clock: systemClock,
      }),
      metrics: new EmfPublishMetrics(metrics),
      onRulesError: (error) =>
        logger.warn(
          'listing the bus rules failed: every event goes to the bus until the next try',
          { error: loggableThrown(error) },
        ),
    }),
    () => undefined,
    (refusals) => {
      for (const { failure, subject } of refusals)
        logger.error(describeRefusal(failure, subject), { ...failure, subject });
    },
  );
  // Every invocation of every poller takes its grants from the token's item in the state
  // table: concurrent invocations polling one token share one budget.
  const connectionStore = new DynamoDbConnectionStore({
    client: dynamoDb,
    tableName: config.tableName,
  });
  const connectorRequests = new ConnectorRequestTally();
  const connections = createConnectionClients({
    config,
    store: connectionStore,
    dynamo: dynamoDb,
    secrets: new SecretsManagerClient({}),
    onRequest: connectorRequests.onRequest,
  });
  return {
    config,
    store,
    publisher,
    connectionStore,
    connections,
    overlapMemory: new OverlapMemory(),
    connectorRequests,
  };
}

/** Built on the first invocation and kept while the container is warm. */
let deps: PollerDeps | undefined;

/**
 * The connection and streams of a poll job (the one-stream form names its connection in the
 * id), or `purge` for the planner's purge of removed streams.
 */
function jobStreams(
  body: unknown,
): { connectionId: string; streamIds: string[]; dueBy?: number } | 'purge' {
  const job = parseOrThrow(PollJobSchema, body, 'poll job');
  if ('purge' in job) return 'purge';
  if ('connectionId' in job) return job;
  return { connectionId: splitStreamId(job.streamId).connectionId, streamIds: [job.streamId] };
}

/**
 * A purge job: deletes what streams removed in the background left (snapshots in bounded
 * steps, then their tombstones) until none is left or the invocation's deadline.
 */
async function purgeRemovedStreams(store: DynamoDbStateStore, context: Context): Promise<void> {
  const result = await runPurgeJob(store, {
    clock: systemClock,
    deadline: pollDeadline(systemClock.now(), context.getRemainingTimeInMillis()),
    owner: context.awsRequestId,
  });
  logger.info('purge of removed streams', { ...result });
}

/**
 * A stored connection whose token did not open (KMS refused its data key): the job's streams
 * say why and back off, the connection is next due with them (not planned again every minute),
 * and the poll failure alarm counts it. The job itself is done: no redelivery.
 */
async function reportUnopened(
  { store, connectionStore }: Pick<PollerDeps, 'store' | 'connectionStore'>,
  connectionId: string,
  streamIds: readonly string[],
  error: ConnectionUnopenedError,
): Promise<void> {
  logger.error('poll job: the connection token could not be opened', {
    connectionId,
    error: loggableThrown(error),
  });
  metrics.addMetric('PollFailures', MetricUnit.Count, 1);
  const nextDueAt = await recordUnopenedConnection(streamIds, error, { store, clock: systemClock });
  if (nextDueAt !== undefined) await connectionStore.recordNextDue(connectionId, nextDueAt);
}

/**
 * A connection whose credentials are not stored yet (its secret, created empty by the stack,
 * holds no value): its streams are marked parked with the reason, counted in `StreamsParked`,
 * and due at their next slot, as a stored connection is. The job is done: no redelivery, so no
 * dead letter a planner run; the first job after put-secret-value polls.
 */
async function reportCredentialsNotStored(
  { store, connectionStore, config }: Pick<PollerDeps, 'store' | 'connectionStore' | 'config'>,
  streamIds: readonly string[],
  error: CredentialsNotStoredError,
): Promise<void> {
  const { connectionId } = error;
  logger.warn('poll job: the connection has no credentials yet', {
    connectionId,
    reason: error.message,
  });
  const { marked, nextDueAt } = await recordCredentialsNotStored(streamIds, error, {
    store,
    clock: systemClock,
  });
  reportParkedStreams(
    marked.map((streamId) => ({ kind: 'skipped', streamId, reason: 'parked' })),
    metrics,
  );
  // The planner finds a stored connection's next job from this, not from its stream states.
  if (nextDueAt !== undefined && !config.secretIds[connectionId])
    await connectionStore.recordNextDue(connectionId, nextDueAt);
}

/**
 * Poll-job consumer: one message per connection with due streams; the invocation polls each
 * of them with one client and one budget. Connector failures are recorded on the stream
 * (backoff, parking) and the message succeeds, and so are a stored token KMS does not open
 * (see reportUnopened) and credentials not stored yet (see reportCredentialsNotStored); anything else (state store, publish, the deployment secret) is reported
 * as a batch item failure so SQS redelivers the job.
 */
const poll = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  // Inside the handler wrapper, once per container: see buildPollerDeps.
  deps ??= buildPollerDeps(process.env);
  const current = deps;
  const { config, store, publisher, connectionStore, connections, overlapMemory } = current;
  const { connectorRequests } = current;
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const job = jobStreams(JSON.parse(record.body));
      if (job === 'purge') {
        await purgeRemovedStreams(store, context);
        continue;
      }
      const { connectionId, streamIds, dueBy } = job;
      const connection = await connections.open(connectionId).catch(async (error: unknown) => {
        if (error instanceof CredentialsNotStoredError) {
          await reportCredentialsNotStored(current, streamIds, error);
          return null;
        }
        if (!(error instanceof ConnectionUnopenedError)) throw error;
        await reportUnopened(current, connectionId, streamIds, error);
        return null;
      });
      if (connection === null) continue;
      if (!connection) {
        logger.info('poll job for a disabled or unknown connection', { connectionId });
        continue;
      }
      // A stored connection disabled or removed while the job runs stops its polls at once.
      const watch =
        connection.registeredAt === undefined
          ? undefined
          : watchConnection(connectionStore, connectionId, connection.registeredAt, systemClock);
      const { outcomes, nextDueAt, states } = await pollConnectionStreams(
        streamIds,
        connection.definitions,
        {
          ...(watch ? { signal: watch.signal } : {}),
          store,
          client: connection.client,
          publisher,
          clock: systemClock,
          windows: config.settings.windows,
          pageCount: config.settings.pageCount,
          overlapMemory,
          deadline: pollDeadline(systemClock.now(), context.getRemainingTimeInMillis()),
        },
        context.awsRequestId,
        dueBy,
      ).finally(() => watch?.stop());
      // The planner finds a stored connection's next job from this, not from its stream states.
      if (!config.secretIds[connectionId] && nextDueAt !== undefined) {
        await connectionStore.recordNextDue(connectionId, nextDueAt);
      }
      // Refused credentials: the next job reads them again, so a token rotated since
      // (put-secret-value, README) is used at once, not when the container is recycled.
      if (outcomes.some(isParked)) connections.forget(connectionId);
      reportParkedStreams(outcomes, metrics);
      reportConnectorUse(connectorRequests.take(), connection.client.budgetView(), metrics);
      const watermarkAges: number[] = [];
      for (const outcome of outcomes) {
        // A record that broke its schema was left out: its change is not published.
        reportPollOutcome(outcome, logger, metrics);
        // The state the job last read or wrote; read only for a stream it never touched.
        const state = states.has(outcome.streamId)
          ? states.get(outcome.streamId)
          : await store.getStream(outcome.streamId);
        if (reportsWatermarkAge(state)) {
          const ageSeconds = (systemClock.now() - Date.parse(state.watermark)) / 1000;
          watermarkAges.push(ageSeconds);
          if (config.streamMetrics)
            metrics
              .singleMetric()
              .addDimensions({ Stream: outcome.streamId })
              .addMetric('WatermarkAgeSeconds', MetricUnit.Seconds, ageSeconds);
        }
      }
      reportOldestWatermarkAge(watermarkAges, metrics);
    } catch (error) {
      logger.error('poll job failed', {
        error: loggableThrown(error),
        messageId: record.messageId,
      });
      // The poll failure alarm counts these too: the job is retried, its streams are not polled.
      metrics.addMetric('PollFailures', MetricUnit.Count, 1);
      // Its requests (and 429s) count too: they were sent.
      reportConnectorUse(connectorRequests.take(), undefined, metrics);
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  metrics.publishStoredMetrics();
  return { batchItemFailures: failures };
};

/** The Lambda entry point: {@link poll}, with what escapes it sanitized (see sanitizingEscapes). */
export const handler = sanitizingEscapes(poll);
