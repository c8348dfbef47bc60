import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { z } from 'zod';
import type { AdminDeps } from '../shared/admin/admin-deps.ts';
import { DynamoDbBackfillJobStore } from '../shared/admin/backfill-jobs.ts';
import { parseJsonBody } from '../shared/admin/node-server.ts';
import type { AdminResponse } from '../shared/admin/route.ts';
import { handleAdminRequest } from '../shared/admin/router.ts';
import { systemClock, systemRandom } from '../shared/clock.ts';
import { parseOrThrow } from '../shared/errors.ts';
import { DynamoDbStateStore } from '../shared/state/dynamodb-state-store.ts';
import { createDispatcherDeps } from '../shared/webhooks/dispatcher-deps.ts';
import { DynamoDbWebhookStore } from '../shared/webhooks/dynamodb-store.ts';
import { UndiciWebhookSender } from '../shared/webhooks/http-sender.ts';
import { EventBridgeOperationalEventSink } from '../shared/webhooks/operational-events.ts';
import { SqsDeliveryQueue } from '../shared/webhooks/queue.ts';
import { createWebhookService } from '../shared/webhooks/service.ts';
import { systemRandomBytes } from '../shared/webhooks/signing.ts';
import { systemResolver } from '../shared/webhooks/url-policy.ts';
import { type PollLambdaConfig, readPollLambdaEnv } from './poll-env.ts';

/** Variables the admin function reads beyond the poll ones (set by infra/). */
export const AdminApiEnvSchema = z.object({
  STATE_TABLE_NAME: z.string().min(1),
  // Not z.url(): local emulators hand out queue URLs that WHATWG rejects.
  DISPATCH_QUEUE_URL: z.string().min(1),
  EVENT_BUS_NAME: z.string().min(1),
  EVENT_SOURCE: z.string().min(1).default('change-bridge'),
  WEBHOOK_ALLOW_PRIVATE: z
    .enum(['true', 'false', '1', '0', ''])
    .default('false')
    .transform((value) => value === 'true' || value === '1'),
});

/** Parsed configuration of the admin function. */
export interface AdminApiConfig {
  tableName: string;
  dispatchQueueUrl: string;
  eventBusName: string;
  eventSource: string;
  allowPrivate: boolean;
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
  const parsed = parseOrThrow(AdminApiEnvSchema, env, 'environment');
  return {
    tableName: parsed.STATE_TABLE_NAME,
    dispatchQueueUrl: parsed.DISPATCH_QUEUE_URL,
    eventBusName: parsed.EVENT_BUS_NAME,
    eventSource: parsed.EVENT_SOURCE,
    allowPrivate: parsed.WEBHOOK_ALLOW_PRIVATE,
    poll: readPollLambdaEnv(env, nowMs),
  };
}

const logger = new Logger();

function buildDeps(config: AdminApiConfig): AdminDeps {
  const dynamo = new DynamoDBClient({});
  const policy = { allowPrivate: config.allowPrivate };
  const dispatcher = createDispatcherDeps({
    store: new DynamoDbWebhookStore({
      client: dynamo,
      tableName: config.tableName,
      clock: systemClock,
    }),
    queue: new SqsDeliveryQueue(new SQSClient({}), config.dispatchQueueUrl),
    // Required by the dispatcher deps; the admin service only enqueues, it never sends.
    sender: new UndiciWebhookSender({ policy, resolve: systemResolver, clock: systemClock }),
    sink: new EventBridgeOperationalEventSink(
      new EventBridgeClient({}),
      config.eventBusName,
      config.eventSource,
    ),
  });
  return {
    webhooks: createWebhookService({
      ...dispatcher,
      policy,
      resolve: systemResolver,
      randomBytes: systemRandomBytes,
    }),
    state: new DynamoDbStateStore({ client: dynamo, tableName: config.tableName }),
    streams: config.poll.definitions,
    windows: config.poll.settings.windows,
    backfills: new DynamoDbBackfillJobStore({
      client: dynamo,
      tableName: config.tableName,
      clock: systemClock,
    }),
    clock: systemClock,
    random: systemRandom,
    onError: (error, request) => logger.error('admin request failed', { error, ...request }),
  };
}

function toResult(response: AdminResponse): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> = { ...response.headers, 'cache-control': 'no-store' };
  if (response.body === undefined) return { statusCode: response.status, headers };
  return {
    statusCode: response.status,
    headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(response.body),
  };
}

/**
 * An API Gateway HTTP API (payload format 2.0) handler over the admin router: the routes of
 * the local `start` admin API, unchanged. `getDeps` is called per request; let it cache.
 */
export function createAdminApiHandler(getDeps: () => AdminDeps) {
  return async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const raw = event.body
      ? event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body
      : '';
    const body = parseJsonBody(raw);
    if (!body.ok) return toResult(body.response);
    const response = await handleAdminRequest(
      {
        method: event.requestContext.http.method,
        path: event.rawPath,
        query: event.queryStringParameters ?? {},
        body: body.value,
      },
      getDeps(),
    );
    return toResult(response);
  };
}

let deps: AdminDeps | undefined;

/** The Lambda entry point: dependencies are built from the environment on the first request. */
export const handler = createAdminApiHandler(() => {
  deps ??= buildDeps(readAdminApiEnv(process.env, systemClock.now()));
  return deps;
});
