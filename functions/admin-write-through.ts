import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDbBackfillJobStore } from '../shared/admin/dynamodb-backfill-job-store.ts';
import { systemClock } from '../shared/clock.ts';
import { DynamoDbBulkLaneLedger } from '../shared/publish/dynamodb-bulk-lane-ledger.ts';
import { ObservedPublisher, type Refusal } from '../shared/publish/observed-publisher.ts';
import { createPublisher, parsePublisherConfig } from '../shared/publish/publisher-config.ts';
import { DEFAULT_RETRY_OPTIONS } from '../shared/publish/retry-backoff.ts';
import { DynamoDbGrantLedger } from '../shared/state/dynamodb-grant-ledger.ts';
import type { StateStore } from '../shared/state/state-store.ts';
import { createConnectionWriteThrough } from '../shared/writes/connection-write-through.ts';
import type { WriteThrough, WriteThroughOptions } from '../shared/writes/write-through.ts';
import {
  type AdminWriteConnectionDeps,
  adminConnectionCredentials,
  adminWritableConnections,
} from './admin-write-connections.ts';
import type { PollLambdaConfig } from './poll-env.ts';

export { writeThroughConnection } from './admin-write-connections.ts';

/** The connections the admin function's proxy writes through, and who is told of failures. */
export interface AdminWriteThroughExtras {
  /** Connections stored at run time and the cipher that opens their tokens. */
  connections: Pick<AdminWriteConnectionDeps, 'store' | 'cipher'>;
  onPublishError?: WriteThroughOptions['onPublishError'];
  onRefused?: (refusals: readonly Refusal[]) => void;
}

/**
 * The write-through of the admin function: each call with the credentials of the connection it
 * names (`connectionId`), else of the only connection of the props: a props connection's from
 * its Secrets Manager secret, a stored one's from the deployment secret and its sealed token
 * (see adminWritableConnections), read when first used; and the poller's publisher (PUBLISH_*
 * variables: EventBridge, and SQS when configured; the dispatch queues with the bulk lane's
 * counts in the table). Events a target refuses for good (too large even thin, malformed) go
 * to `onRefused`, as the poller's do: the write succeeded, so nothing else says that its
 * change reached no one.
 */
export function buildAdminWriteThrough(
  config: PollLambdaConfig,
  env: Readonly<Record<string, string | undefined>>,
  state: StateStore,
  dynamo: DynamoDBClient,
  extras: AdminWriteThroughExtras,
): WriteThrough {
  const { onPublishError, onRefused } = extras;
  const inner = createPublisher(parsePublisherConfig(env), {
    eventBridgeClient: new EventBridgeClient({}),
    sqsClient: new SQSClient({}),
    // The short retries (1.5 s of waiting at most), not the poller's 16 s: the caller waits for
    // the answer behind API Gateway's 29 s, and a publish that fails leaves its snapshot
    // unwritten, so the next poll reports the change.
    retry: DEFAULT_RETRY_OPTIONS,
    bulkLaneLedger: new DynamoDbBulkLaneLedger({
      client: dynamo,
      tableName: config.tableName,
      clock: systemClock,
    }),
  });
  const publisher = onRefused ? new ObservedPublisher(inner, () => undefined, onRefused) : inner;
  return createConnectionWriteThrough({
    connectionFor: adminWritableConnections({
      config,
      secrets: new SecretsManagerClient({}),
      ...extras.connections,
    }),
    credentialsOf: adminConnectionCredentials(config),
    publisher,
    state,
    // A write's events in a stream with a backfill running count in the job (its `written`).
    backfills: new DynamoDbBackfillJobStore({
      client: dynamo,
      tableName: config.tableName,
      clock: systemClock,
    }),
    clock: systemClock,
    // The token's budget in the state table, as the pollers keep it (connection-clients.ts):
    // the proxy's requests count in the one budget of the AccessToken.
    clientDeps: {
      budgetLedger: new DynamoDbGrantLedger(dynamo, config.tableName),
      budgetMarginMs: config.settings.budgetMarginMs,
    },
    ...(onPublishError ? { onPublishError } : {}),
  });
}
