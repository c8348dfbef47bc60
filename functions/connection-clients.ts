import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { registrationKey, type StoredConnection } from '../shared/connections/connection.ts';
import type { ConnectionStore } from '../shared/connections/connection-store.ts';
import {
  connectorConfigOf,
  streamsOfConnection,
} from '../shared/connections/connection-streams.ts';
import { CachingDataKeyProvider } from '../shared/connections/data-key-provider.ts';
import { KmsDataKeyProvider } from '../shared/connections/kms-data-key-provider.ts';
import {
  createTokenCipher,
  type TokenCipher,
  TokenDecryptionError,
} from '../shared/connections/token-cipher.ts';
import type { ConnectorClientDeps } from '../shared/connector/client.ts';
import {
  loadConnectionSecret,
  loadDeploymentSecret,
  SecretWithoutValueError,
} from '../shared/connector/connection-secrets.ts';
import {
  type ConnectorClient,
  createConnectorClient,
} from '../shared/connector/connector-client.ts';
import { borrowedTransport, createUndiciTransport } from '../shared/connector/http-transport.ts';
import { BridgeError } from '../shared/errors.ts';
import { LoadingCache } from '../shared/loading-cache.ts';
import { CredentialsNotStoredError } from '../shared/polling/credentials-not-stored.ts';
import type { StreamDefinition } from '../shared/polling/poll-context.ts';
import { ConnectionUnopenedError } from '../shared/polling/unopened-connection.ts';
import { DynamoDbGrantLedger } from '../shared/state/dynamodb-grant-ledger.ts';
import { createKmsDataKeyApi } from './kms-api.ts';
import type { PollLambdaConfig } from './poll-env.ts';

/**
 * Connections a container keeps open (token decrypted, client and budget built), the least
 * recently polled let go first: a container may serve thousands of connections over its life.
 */
export const OPEN_CONNECTIONS_MAX = 1_000;

/** A connection ready to poll: its streams and its client (one budget per token). */
export interface OpenConnection {
  definitions: readonly StreamDefinition[];
  client: ConnectorClient;
  /** A stored connection's registration (its `createdAt`), watched while a job polls it. */
  registeredAt?: string;
}

/**
 * The connections a poller invocation opens (a stored one whose token does not open throws a
 * ConnectionUnopenedError with its streams; one whose secret, or the deployment secret, holds no
 * value yet a CredentialsNotStoredError with them): the props' starting set from their own secrets,
 * the rest from the state table (token sealed under the KMS key, endpoint and ClientToken
 * from the deployment secret). Clients share one keep-alive pool and are kept for the cold
 * start (up to {@link OPEN_CONNECTIONS_MAX}), keyed by registration, so a token is decrypted once
 * per container; the stored record is re-read per job, so a disabled or removed connection is
 * never polled again.
 */
export function createConnectionClients(options: {
  config: PollLambdaConfig;
  store: ConnectionStore;
  dynamo: DynamoDBClient;
  secrets: SecretsManagerClient;
  /** Told of every connector request the clients send, with its status (see ConnectorClientDeps). */
  onRequest?: ConnectorClientDeps['onRequest'];
}): {
  open(connectionId: string): Promise<OpenConnection | undefined>;
  /**
   * Lets go of the connection's client, so its next `open` reads its credentials again (the
   * secret, or the stored connection with the deployment secret): after an authorization error,
   * the token may have been rotated since the container read it.
   */
  forget(connectionId: string): void;
} {
  const { config, store, dynamo, secrets } = options;
  const budgetLedger = new DynamoDbGrantLedger(dynamo, config.tableName);
  // One keep-alive pool to the connector for every connection the container polls.
  const transport = borrowedTransport(createUndiciTransport());
  const clientDeps: ConnectorClientDeps = {
    budgetLedger,
    budgetMarginMs: config.settings.budgetMarginMs,
    transport,
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
  };
  const clients = new LoadingCache<OpenConnection>(OPEN_CONNECTIONS_MAX, (open) =>
    open.client.close(),
  );
  /** The cache key each connection was last opened under. */
  const keys = new Map<string, string>();
  const cipher = createKmsTokenCipher(config.tokenKeyArn);
  const openStored = async (connection: StoredConnection): Promise<OpenConnection> => {
    if (!config.deploymentSecretArn) throw new BridgeError('DEPLOYMENT_SECRET_ARN is not set');
    const [deployment, accessToken] = await Promise.all([
      loadDeploymentSecret(secrets, config.deploymentSecretArn),
      cipher.open(connection.id, connection.accessToken),
    ]);
    return {
      registeredAt: connection.createdAt,
      definitions: streamsOfConnection(connection, config.settings, config.tracked),
      client: createConnectorClient(
        connectorConfigOf(deployment, connection, accessToken),
        clientDeps,
      ),
    };
  };
  return {
    async open(connectionId) {
      const secretArn = config.secretIds[connectionId];
      if (secretArn) {
        keys.set(connectionId, connectionId);
        const definitions = config.definitions.filter((d) => d.connectionId === connectionId);
        return clients
          .get(connectionId, async () => ({
            definitions,
            client: createConnectorClient(
              await loadConnectionSecret(secrets, secretArn),
              clientDeps,
            ),
          }))
          .catch((error: unknown) => {
            // The stack creates the secret empty: told on its streams by the poller.
            if (error instanceof SecretWithoutValueError)
              throw new CredentialsNotStoredError(connectionId, definitions, error);
            throw error;
          });
      }
      const stored = await store.get(connectionId);
      if (!stored?.enabled) return undefined;
      keys.set(connectionId, registrationKey(stored));
      return clients
        .get(registrationKey(stored), () => openStored(stored))
        .catch((error: unknown) => {
          // Told on its streams by the poller, where `streams list` shows it.
          const definitions = () => streamsOfConnection(stored, config.settings, config.tracked);
          if (error instanceof TokenDecryptionError)
            throw new ConnectionUnopenedError(connectionId, definitions(), error);
          // The deployment secret, created empty by the stack.
          if (error instanceof SecretWithoutValueError)
            throw new CredentialsNotStoredError(connectionId, definitions(), error);
          throw error;
        });
    },
    forget(connectionId) {
      const key = keys.get(connectionId);
      if (key === undefined) return;
      keys.delete(connectionId);
      clients.delete(key);
    },
  };
}

/**
 * The envelope cipher over the bridge's KMS key, built on first use (functions that never
 * seal or open a token never load the KMS client). One data key per container: the
 * CachingDataKeyProvider lives as long as the cold start.
 */
export function createKmsTokenCipher(tokenKeyArn: string | undefined): TokenCipher {
  let cipher: TokenCipher | undefined;
  const get = () => {
    if (!tokenKeyArn) throw new BridgeError('CONNECTION_TOKEN_KEY_ARN is not set');
    cipher ??= createTokenCipher(
      new CachingDataKeyProvider(new KmsDataKeyProvider(createKmsDataKeyApi(), tokenKeyArn)),
    );
    return cipher;
  };
  return {
    seal: (connectionId, accessToken) => get().seal(connectionId, accessToken),
    open: (connectionId, sealed) => get().open(connectionId, sealed),
  };
}
