import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { BRIDGE_METRICS } from '../infra/metric-names.ts';
import type { AdminDeps } from '../shared/admin/admin-deps.ts';
import { BackfillEstimates } from '../shared/admin/backfill-estimates.ts';
import { BackfillSourcesCache } from '../shared/admin/backfill-sources-cache.ts';
import { DynamoDbBackfillJobStore } from '../shared/admin/dynamodb-backfill-job-store.ts';
import { firstQueryValues, parseJsonBody } from '../shared/admin/node-server.ts';
import { guardSignedRequest } from '../shared/admin/request-guard.ts';
import { adminResponseHeaders, serializeAdminBody } from '../shared/admin/response-body.ts';
import type { AdminResponse } from '../shared/admin/route.ts';
import { handleAdminRequest } from '../shared/admin/router.ts';
import { CONNECTION_PAGE_MAX, STREAM_PAGE_MAX } from '../shared/admin/schemas.ts';
import { systemClock, systemRandom } from '../shared/clock.ts';
import type { ConnectionStore } from '../shared/connections/connection-store.ts';
import {
  enabledConnectionStreams,
  environmentConnectionView,
  streamsOfConnection,
} from '../shared/connections/connection-streams.ts';
import { enabledConnectionStreamsAfter } from '../shared/connections/connection-streams-after.ts';
import { DynamoDbConnectionStore } from '../shared/connections/dynamodb-connection-store.ts';
import { createHostResolver } from '../shared/dns/host-resolver.ts';
import { parseEnvironment } from '../shared/env-issues.ts';
import { ValidationError } from '../shared/errors.ts';
import { describeRefusal } from '../shared/publish/observed-publisher.ts';
import { DEFAULT_RETRY_OPTIONS } from '../shared/publish/retry-backoff.ts';
import { DynamoDbStateStore } from '../shared/state/dynamodb-state-store.ts';
import { streamMatches } from '../shared/state/state-store.ts';
import { DynamoDbDeliveryCounter } from '../shared/webhooks/dynamodb-delivery-counter.ts';
import { createWebhookService } from '../shared/webhooks/service.ts';
import { systemRandomBytes } from '../shared/webhooks/signing.ts';
import type { WriteThroughOptions } from '../shared/writes/write-through.ts';
import { buildAdminWriteThrough } from './admin-write-through.ts';
import { createKmsTokenCipher } from './connection-clients.ts';
import { sanitizingEscapes } from './handler-boundary.ts';
import { loggableThrown } from './loggable-thrown.ts';
import { type PollLambdaConfig, readPollLambdaEnv } from './poll-env.ts';
import { buildWebhookDeps, type WebhookLambdaEnv, WebhookLambdaEnvSchema } from './webhook-deps.ts';

/**
 * The most streams one answer of `GET /streams` holds here, and its default page: a stream's
 * view is about 0.5 KB of JSON, so 4,000 (about 300 properties of 13 streams) are about 2 MB
 * and read about 4 MB of stream states at most. More: the first page and its `nextCursor`.
 */
export const STREAM_LIST_LIMIT = STREAM_PAGE_MAX;

/**
 * The most bytes of JSON an answer of `GET /streams` holds here, as escaped in the proxy
 * result: a page ends before it. Streams whose errors are long (three of 2,000 characters,
 * up to about 24 KB each escaped) then come in more pages, each well within Lambda's 6 MB.
 */
export const STREAM_LIST_BYTES = 4 * 1024 * 1024;

/**
 * The most connections one answer of `GET /connections` holds here, and its default page: about
 * 1.4 MB of JSON, read in a few Queries. More: the first page and its `nextCursor`, as streams.
 * Connections following up to 1,000 products and exports each (about 100 KB) end a page at
 * {@link STREAM_LIST_BYTES} instead.
 */
export const CONNECTION_LIST_LIMIT = CONNECTION_PAGE_MAX;

/** Variables the admin function reads beyond the poll ones (set by infra/). */
export const AdminApiEnvSchema = WebhookLambdaEnvSchema;

/** Parsed configuration of the admin function. */
export interface AdminApiConfig {
  tableName: string;
  dispatchQueueUrl: string;
  eventBusName: string;
  eventSource: string;
  allowPrivate: boolean;
  /** The webhook variables as parsed. */
  webhooks: WebhookLambdaEnv;
  /** Stream definitions and window settings, exactly as the planner and poller read them. */
  poll: PollLambdaConfig;
}

/**
 * Reads the environment once per cold start.
 * @throws ValidationError naming the missing or malformed variable.
 */
export function readAdminApiEnv(
  env: Record<string, string | undefined>,
  nowMs: number,
): AdminApiConfig {
  const parsed = parseEnvironment(AdminApiEnvSchema, env);
  return {
    tableName: parsed.STATE_TABLE_NAME,
    dispatchQueueUrl: parsed.DISPATCH_QUEUE_URL,
    eventBusName: parsed.EVENT_BUS_NAME,
    eventSource: parsed.EVENT_SOURCE,
    allowPrivate: parsed.WEBHOOK_ALLOW_PRIVATE,
    webhooks: parsed,
    poll: readPollLambdaEnv(env, nowMs),
  };
}

const logger = new Logger();
const metrics = new Metrics();

/**
 * The admin function's `onError`: logs a request answered 500 with its method and path, the
 * thrown value as {@link loggableThrown} gives it (an Error with its diagnostic fields only,
 * anything else by its kind only, never field by field).
 */
export function logAdminRequestFailure(logger: Logger): NonNullable<AdminDeps['onError']> {
  return (error, request) =>
    logger.error('admin request failed', { error: loggableThrown(error), ...request });
}

/**
 * The admin function's write-through `onPublishError`: logs the operation whose events were
 * not published and the thrown value as {@link loggableThrown} gives it.
 */
export function logUnpublishedWrite(
  logger: Logger,
): NonNullable<WriteThroughOptions['onPublishError']> {
  return (error, operation) =>
    logger.error('write-through events not published', {
      error: loggableThrown(error),
      operation,
    });
}

/**
 * The admin function's configured streams: the props' starting set and the streams of every
 * enabled stored connection, read page by page; for a page of `GET /streams`, those of the
 * connections from the cursor's on, about a page of them (enabledConnectionStreamsAfter); with
 * a connection named, its item alone (one GetItem), so `GET /streams?connectionId=` stays a
 * short read however many connections there are. The same streams as the whole list's of that
 * connection.
 */
export function adminStreamDefinitions(
  poll: Pick<PollLambdaConfig, 'definitions' | 'settings' | 'tracked'>,
  connections: ConnectionStore,
): AdminDeps['streams'] {
  return async (filter = {}, page) => {
    const { connectionId } = filter;
    if (connectionId === undefined)
      return [
        ...poll.definitions,
        ...(page === undefined
          ? await enabledConnectionStreams(connections, poll.settings, poll.tracked)
          : await enabledConnectionStreamsAfter(connections, poll.settings, poll.tracked, page)),
      ];
    // An item that cannot be read is left out, as the whole list leaves it out.
    const stored = await connections.get(connectionId).catch((error: unknown) => {
      if (error instanceof ValidationError) return undefined;
      throw error;
    });
    return [
      ...poll.definitions.filter((d) => streamMatches(d.streamId, filter)),
      ...(stored?.enabled ? streamsOfConnection(stored, poll.settings, poll.tracked) : []),
    ];
  };
}

function buildDeps(config: AdminApiConfig): Omit<AdminDeps, 'authentication'> {
  const dynamo = new DynamoDBClient({});
  const policy = { allowPrivate: config.allowPrivate };
  // The admin service only stores and enqueues; the sender is part of the shared deps.
  // The short retries (1.5 s of waiting at most) for the events the API publishes (a ping):
  // the caller waits for the answer behind API Gateway's 29 s.
  const dispatcher = buildWebhookDeps(config.webhooks, dynamo, undefined, DEFAULT_RETRY_OPTIONS);
  const state = new DynamoDbStateStore({ client: dynamo, tableName: config.tableName });
  const connections = new DynamoDbConnectionStore({ client: dynamo, tableName: config.tableName });
  // One cipher for the container: `connections add` seals with it, the connector proxy opens.
  const cipher = createKmsTokenCipher(config.poll.tokenKeyArn);
  const startedAt = systemClock.now();
  return {
    webhooks: createWebhookService({
      ...dispatcher,
      policy,
      resolve: createHostResolver().resolve,
      randomBytes: systemRandomBytes,
    }),
    state,
    writeThrough: buildAdminWriteThrough(config.poll, process.env, state, dynamo, {
      connections: { store: connections, cipher },
      onPublishError: logUnpublishedWrite(logger),
      // As the poller: an error log and EventsFailed (the EventsRefused alarm's metric).
      onRefused: (refusals) => {
        for (const { failure, subject } of refusals) {
          logger.error(describeRefusal(failure, subject), { ...failure, subject });
          metrics
            .singleMetric()
            .addDimensions({
              target: failure.target,
              eventType: failure.eventType,
              reason: failure.code,
            })
            .addMetric(BRIDGE_METRICS.eventsFailed, MetricUnit.Count, 1);
        }
      },
    }),
    streams: adminStreamDefinitions(config.poll, connections),
    streamListLimit: STREAM_LIST_LIMIT,
    // Behind API Gateway's 29 s: a removal hides the streams, a poller's purge job empties them.
    stateRemoval: 'background',
    streamListBytes: STREAM_LIST_BYTES,
    connectionListLimit: CONNECTION_LIST_LIMIT,
    connectionListBytes: STREAM_LIST_BYTES,
    connections: {
      store: connections,
      cipher,
      state,
      clock: systemClock,
      // The CDK props' connections: polled from their own secrets, read-only here.
      configured: Object.keys(config.poll.secretIds).map((id) =>
        environmentConnectionView(id, config.poll.settings, startedAt),
      ),
    },
    windows: config.poll.settings.windows,
    // The counters the dispatcher adds to; the admin API only reads them (backfill progress).
    deliveryCounter: new DynamoDbDeliveryCounter({ client: dynamo, tableName: config.tableName }),
    backfills: new DynamoDbBackfillJobStore({
      client: dynamo,
      tableName: config.tableName,
      clock: systemClock,
    }),
    // Kept by the warm instance: `backfill` asks for a job's progress every second.
    backfillSources: new BackfillSourcesCache(),
    backfillEstimates: new BackfillEstimates(),
    clock: systemClock,
    random: systemRandom,
    onError: logAdminRequestFailure(logger),
  };
}

function toResult(response: AdminResponse, method: string): APIGatewayProxyStructuredResultV2 {
  const headers = adminResponseHeaders(response);
  const serialized = serializeAdminBody(response);
  if (serialized === undefined) return { statusCode: response.status, headers };
  // A HEAD answer is the GET one without its body (RFC 9110, 9.3.2).
  if (method.toUpperCase() === 'HEAD') {
    return {
      statusCode: response.status,
      headers: { ...headers, 'content-type': serialized.contentType },
    };
  }
  return {
    statusCode: response.status,
    headers: { ...headers, 'content-type': serialized.contentType },
    body: serialized.text,
  };
}

/**
 * An API Gateway HTTP API (payload format 2.0) handler over the admin router: the routes of
 * the local `start` admin API, unchanged, behind API Gateway's IAM authorization (SigV4), as
 * its `/openapi.json` says, and {@link guardSignedRequest} (what a web page sends through a
 * signing proxy is refused). `getDeps` is called per request; let it cache.
 */
export function createAdminApiHandler(getDeps: () => Omit<AdminDeps, 'authentication'>) {
  return async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const raw = event.body
      ? event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body
      : '';
    const body = parseJsonBody(raw);
    const { method } = event.requestContext.http;
    const refused = guardSignedRequest({
      method,
      headers: event.headers ?? {},
      hasBody: raw !== '',
    });
    if (refused) return toResult(refused, method);
    if (!body.ok) return toResult(body.response, method);
    const response = await handleAdminRequest(
      {
        method,
        path: event.rawPath,
        // API Gateway joins a repeated parameter's values with commas; the raw query keeps them apart.
        query:
          event.rawQueryString !== undefined
            ? firstQueryValues(new URLSearchParams(event.rawQueryString))
            : (event.queryStringParameters ?? {}),
        body: body.value,
      },
      { ...getDeps(), authentication: 'iam' },
    );
    return toResult(response, method);
  };
}

let deps: Omit<AdminDeps, 'authentication'> | undefined;

/**
 * The Lambda entry point: dependencies are built from the environment on the first request;
 * what escapes it (a missing variable, a failed build) is sanitized (see sanitizingEscapes).
 */
export const handler = sanitizingEscapes(
  createAdminApiHandler(() => {
    deps ??= buildDeps(readAdminApiEnv(process.env, systemClock.now()));
    return deps;
  }),
);
