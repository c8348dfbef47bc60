import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { registrationKey } from '../shared/connections/connection.ts';
import { ConnectionNotFoundError } from '../shared/connections/connection-admin.ts';
import type { ConnectionStore } from '../shared/connections/connection-store.ts';
import {
  connectorConfigOf,
  streamsOfConnection,
} from '../shared/connections/connection-streams.ts';
import type { TokenCipher } from '../shared/connections/token-cipher.ts';
import {
  type DeploymentSecret,
  loadConnectionSecret,
  loadDeploymentSecret,
} from '../shared/connector/connection-secrets.ts';
import type { ConnectorConfig } from '../shared/connector/connector-config.ts';
import { storedConnectionCredentials } from '../shared/connector/credential-fields.ts';
import { BridgeError } from '../shared/errors.ts';
import { LoadingCache } from '../shared/loading-cache.ts';
import {
  ConnectionUnwritableError,
  type WritableConnection,
} from '../shared/writes/connection-write-through.ts';
import { OPEN_CONNECTIONS_MAX } from './connection-clients.ts';
import type { PollLambdaConfig } from './poll-env.ts';

/**
 * The connection a call that names none writes through: the only one of the props. With none
 * or several, a call must name one.
 */
export function writeThroughConnection(
  config: Pick<PollLambdaConfig, 'secretIds'>,
): string | undefined {
  const ids = Object.keys(config.secretIds);
  return ids.length === 1 ? ids[0] : undefined;
}

/**
 * Where the credentials of a connection the admin function's proxy writes through come from,
 * for messages: a props connection's secret, a stored connection's sealed AccessToken and the
 * deployment secret; with none named and no default, the connection the call must name. Pure.
 */
export function adminConnectionCredentials(
  config: Pick<PollLambdaConfig, 'secretIds'>,
): (connectionId: string | undefined) => string {
  return (named) => {
    const id = named ?? writeThroughConnection(config);
    if (id === undefined) return 'the connection the call names (connectionId)';
    const secretId = config.secretIds[id];
    return secretId === undefined
      ? storedConnectionCredentials(id, 'the ClientToken of the deployment secret')
      : `connection ${id} (its secret ${secretId})`;
  };
}

/** What {@link adminWritableConnections} reads credentials from. */
export interface AdminWriteConnectionDeps {
  config: PollLambdaConfig;
  secrets: SecretsManagerClient;
  /** The connections stored at run time (`POST /connections`), read at each call. */
  store: Pick<ConnectionStore, 'get'>;
  /** Opens their sealed AccessTokens (the KMS key). */
  cipher: Pick<TokenCipher, 'open'>;
}

/**
 * The admin function's lookup of the connection a proxied call names: a props connection
 * with its own secret, or a stored one, read (strongly consistent) at each call, so one added
 * at run time is writable at once and one disabled or removed no longer; its endpoint and
 * ClientToken from the deployment secret, its AccessToken opened with the KMS key. Secrets and
 * opened tokens are kept for the container (a stored one by registration: re-added, it opens anew).
 * @throws ConnectionNotFoundError (no such connection, or none named where the props hold not
 * exactly one), ConnectionUnwritableError (disabled).
 */
export function adminWritableConnections(
  deps: AdminWriteConnectionDeps,
): (connectionId: string | undefined) => Promise<WritableConnection> {
  const { config, secrets } = deps;
  const opened = new LoadingCache<ConnectorConfig>(OPEN_CONNECTIONS_MAX);
  const deploymentSecret = new LoadingCache<DeploymentSecret>(1);
  const deployment = () =>
    deploymentSecret.get('deployment', () => {
      if (!config.deploymentSecretArn)
        return Promise.reject(new BridgeError('DEPLOYMENT_SECRET_ARN is not set'));
      return loadDeploymentSecret(secrets, config.deploymentSecretArn);
    });
  return async (named) => {
    const id = named ?? writeThroughConnection(config);
    if (id === undefined)
      throw new ConnectionNotFoundError(
        'name the connection to write through: the connectionId query parameter (call --via-bridge --connection ID)',
      );
    const secretId = config.secretIds[id];
    if (secretId !== undefined) {
      const streams = config.definitions.filter((d) => d.connectionId === id);
      return {
        id,
        connector: await opened.get(`props:${id}`, () => loadConnectionSecret(secrets, secretId)),
        scope: streams[0]?.scope ?? {},
        streams,
        // A token rotated since (put-secret-value): the next call reads the secret again.
        refused: () => opened.delete(`props:${id}`),
      };
    }
    const stored = await deps.store.get(id);
    if (!stored) throw new ConnectionNotFoundError(`connection ${id} does not exist`);
    if (!stored.enabled)
      throw new ConnectionUnwritableError(
        `connection ${id} is disabled: enable it to write through it`,
      );
    const key = `stored:${registrationKey(stored)}`;
    const connector = await opened.get(key, async () => {
      const [endpoint, accessToken] = await Promise.all([
        deployment(),
        deps.cipher.open(stored.id, stored.accessToken),
      ]);
      return connectorConfigOf(endpoint, stored, accessToken);
    });
    return {
      id,
      connector,
      scope: {},
      streams: streamsOfConnection(stored, config.settings, config.tracked),
      // The ClientToken may have been rotated in the deployment secret: both are read again.
      refused: () => {
        opened.delete(key);
        deploymentSecret.delete('deployment');
      },
    };
  };
}
