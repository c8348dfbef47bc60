import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { systemClock } from '../shared/clock.ts';
import { loadConnectionSecret } from '../shared/connector/connection-secrets.ts';
import { DynamoDbBulkLaneLedger } from '../shared/publish/dynamodb-bulk-lane-ledger.ts';
import { ObservedPublisher, type Refusal } from '../shared/publish/observed-publisher.ts';
import { createPublisher, parsePublisherConfig } from '../shared/publish/publisher-config.ts';
import { DEFAULT_RETRY_OPTIONS } from '../shared/publish/retry-backoff.ts';
import { DynamoDbGrantLedger } from '../shared/state/dynamodb-grant-ledger.ts';
import type { StateStore } from '../shared/state/state-store.ts';
import {
  createWriteThrough,
  type WriteThrough,
  type WriteThroughOptions,
} from '../shared/writes/write-through.ts';
import type { PollLambdaConfig } from './poll-env.ts';

/**
 * The connection the admin API's connector proxy writes through: the only configured one.
 * With several connections the proxy is off (its routes answer 404) rather than guessing.
 */
export function writeThroughConnection(config: PollLambdaConfig): string | undefined {
  const ids = Object.keys(config.secretIds);
  return ids.length === 1 ? ids[0] : undefined;
}

/**
 * The write-through of the admin function: the connection's credentials from Secrets
 * Manager (loaded on the first proxied call, as the poller loads them), and the poller's
 * publisher (PUBLISH_* variables: EventBridge, and SQS when configured; the dispatch queues
 * with the bulk lane's counts in the table). Undefined when
 * no single connection is configured. Events a target refuses for good (too large even thin,
 * malformed) go to `onRefused`, as the poller's do: the write succeeded, so nothing else says
 * that its change reached no one.
 */
export function buildAdminWriteThrough(
  config: PollLambdaConfig,
  env: Readonly<Record<string, string | undefined>>,
  state: StateStore,
  dynamo: DynamoDBClient,
  onPublishError?: WriteThroughOptions['onPublishError'],
  onRefused?: (refusals: readonly Refusal[]) => void,
): WriteThrough | undefined {
  const connectionId = writeThroughConnection(config);
  if (connectionId === undefined) return undefined;
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
  const scope = config.definitions.find((d) => d.connectionId === connectionId)?.scope ?? {};
  // The token's budget in the state table, as the pollers keep it (connection-clients.ts): the
  // proxy's requests count in the one budget of the AccessToken.
  const clientDeps = {
    budgetLedger: new DynamoDbGrantLedger(dynamo, config.tableName),
    budgetMarginMs: config.settings.budgetMarginMs,
  };
  let loaded: Promise<WriteThrough> | undefined;
  const load = () => {
    loaded ??= loadConnectionSecret(
      new SecretsManagerClient({}),
      config.secretIds[connectionId]!,
    ).then((connector) =>
      createWriteThrough({
        connectionId,
        connector,
        scope,
        publisher,
        state,
        streams: config.definitions,
        clock: systemClock,
        clientDeps,
        ...(onPublishError ? { onPublishError } : {}),
      }),
    );
    loaded.catch(() => {
      loaded = undefined;
    });
    return loaded;
  };
  return {
    forward: async (operation, body) => (await load()).forward(operation, body),
    close: async () => (await loaded)?.close(),
  };
}
