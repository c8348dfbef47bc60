import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../clock.ts';
import type { ConnectionView } from '../connections/connection.ts';
import type { ConnectionAdminDeps } from '../connections/connection-admin.ts';
import {
  ConnectionRegistry,
  type PolledConnection,
  type PollingChange,
} from '../connections/connection-registry.ts';
import { CachingDataKeyProvider } from '../connections/data-key-provider.ts';
import { DynamoDbConnectionStore } from '../connections/dynamodb-connection-store.ts';
import {
  LOCAL_KEY_FILE_NAME,
  LocalKeyFileProvider,
  loadOrCreateKeyFile,
} from '../connections/local-key-file.ts';
import { createTokenCipher, TokenDecryptionError } from '../connections/token-cipher.ts';
import type { ConnectorClientDeps } from '../connector/client.ts';
import { createConnectorClient } from '../connector/connector-client.ts';
import type { ConnectorConfig } from '../connector/connector-config.ts';
import { borrowedTransport, createUndiciTransport } from '../connector/http-transport.ts';
import { formatDuration } from '../duration.ts';
import { describeThrown } from '../errors.ts';
import type { PollSettings } from '../polling/poll-settings.ts';
import type { TrackedTargets } from '../polling/tracked-targets.ts';
import type { StateStore } from '../state/state-store.ts';

/**
 * How often a local run re-reads the connection store besides being told by the admin API.
 * Only this process opens the data dir, so the admin API is the only writer: the period is
 * a safety net, not the path a new connection takes.
 */
export const LOCAL_CONNECTION_REFRESH_MS = 10_000;

/** Options of {@link openLocalConnections}. */
export interface LocalConnectionsOptions {
  dataDir: string;
  dynamo: DynamoDBClient;
  tableName: string;
  state: StateStore;
  settings: PollSettings;
  /** The exports and products a connection follows when it names none of its own. */
  tracked: TrackedTargets;
  /** The CONNECTOR_* connection (or the simulator's): endpoint and ClientToken are the deployment's. */
  deployment: ConnectorConfig;
  /** The environment's connection, polled always, and its view for `connections list`. */
  fixed: PolledConnection;
  fixedView: ConnectionView;
  clientDeps: ConnectorClientDeps;
  clock: Clock;
  onError(message: string): void;
  /** What a connection polls to no avail, as it joins (see ConnectionRegistryDeps.onWarning). */
  onWarning(message: string): void;
  /** A connection added, changed, disabled or removed at run time, in a line for people. */
  onInfo(message: string): void;
}

/** The connections of a local run: the registry the poll loop reads and the admin API's deps. */
export interface LocalConnections {
  registry: ConnectionRegistry;
  admin: ConnectionAdminDeps;
  close(): Promise<void>;
}

/**
 * Opens the local connection store (the state table in dynalite), the key file in the data
 * dir (created 0600 on first use) and the registry of polled connections, refreshed when
 * the admin API changes a connection and every {@link LOCAL_CONNECTION_REFRESH_MS}.
 */
export async function openLocalConnections(
  options: LocalConnectionsOptions,
): Promise<LocalConnections> {
  const keyFilePath = join(options.dataDir, LOCAL_KEY_FILE_NAME);
  const keyFile = await loadOrCreateKeyFile(keyFilePath);
  const cipher = createTokenCipher(new CachingDataKeyProvider(new LocalKeyFileProvider(keyFile)));
  const store = new DynamoDbConnectionStore({
    client: options.dynamo,
    tableName: options.tableName,
    onUnreadable: (id, error) =>
      options.onError(`connection ${id} is not polled: ${describeThrown(error)}`),
  });
  // One keep-alive pool to the connector for every stored connection, however many.
  const transport = createUndiciTransport();
  const sharedTransport = borrowedTransport(transport);
  const { accessToken: _token, portfolioScope: _scope, ...deployment } = options.deployment;
  const registry = new ConnectionRegistry({
    store,
    cipher,
    settings: options.settings,
    tracked: options.tracked,
    deployment,
    createClient: (config) =>
      createConnectorClient(config, { ...options.clientDeps, transport: sharedTransport }),
    fixed: [options.fixed],
    onError: (id, error) =>
      options.onError(`connection ${id} is not polled: ${notPolledReason(error, keyFilePath)}`),
    onWarning: (_id, message) => options.onWarning(message),
    // Not for those the first refresh finds (thousands, perhaps): the run's start says its own.
    onPolling: (connection, change) => {
      if (started) options.onInfo(pollingChangeLine(connection, change));
    },
  });
  let started = false;
  await registry.refresh();
  started = true;
  const refresh = () =>
    registry
      .refresh()
      .catch((error: unknown) =>
        options.onError(`connections refresh failed: ${describeThrown(error)}`),
      );
  const timer = setInterval(refresh, LOCAL_CONNECTION_REFRESH_MS);
  timer.unref();
  return {
    registry,
    admin: {
      store,
      cipher,
      state: options.state,
      clock: options.clock,
      configured: [options.fixedView],
      notPolledBecause: (connection) => {
        const error = registry.openFailure(connection);
        return error === undefined ? undefined : notPolledReason(error, keyFilePath);
      },
      onChange: (connectionId) =>
        registry
          .refreshConnection(connectionId)
          .catch((error: unknown) =>
            options.onError(`connection ${connectionId} refresh failed: ${describeThrown(error)}`),
          ),
    },
    async close() {
      clearInterval(timer);
      await registry.close();
      await transport.close();
    },
  };
}

/**
 * What a refresh changed of a connection, in a line: its entity types and interval when it
 * joins. Pure.
 * @example pollingChangeLine(connection, 'added') // 'connection hotel-1 is polled: customer, resource every 1m'
 */
export function pollingChangeLine(connection: PolledConnection, change: PollingChange): string {
  if (change === 'disabled' || change === 'removed')
    return `connection ${connection.id} is no longer polled (${change})`;
  const entities = connection.definitions.map((definition) => definition.spec.entityType);
  const intervals = [...new Set(connection.definitions.map((d) => d.intervalMs))];
  const every = intervals.length === 1 ? ` every ${formatDuration(intervals[0]!)}` : '';
  const again = change === 'changed' ? ' again, as changed' : '';
  return `connection ${connection.id} is polled${again}: ${entities.join(', ')}${every}`;
}

/** Why a connection whose token did not open is not polled, for its warning and its view. */
function notPolledReason(error: unknown, keyFilePath: string): string {
  return error instanceof TokenDecryptionError
    ? `its AccessToken does not open with the key file ${keyFilePath} (replaced or lost since the token was added, or the connection copied from another data dir): restore that key file, or remove the connection and add it again with its token`
    : describeThrown(error);
}
