import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDbBackfillJobStore } from '../admin/dynamodb-backfill-job-store.ts';
import type { Clock } from '../clock.ts';
import type { ConnectorClientDeps } from '../connector/client.ts';
import {
  ENVIRONMENT_CREDENTIALS,
  storedConnectionCredentials,
} from '../connector/credential-fields.ts';
import { describeThrown } from '../errors.ts';
import type { SnapshotWriteGate } from '../polling/snapshot-write-gate.ts';
import type { EventPublisher } from '../publish/publisher.ts';
import type { StateStore } from '../state/state-store.ts';
import { createConnectionWriteThrough } from '../writes/connection-write-through.ts';
import { registryWritableConnection } from '../writes/registry-writable-connection.ts';
import type { WriteThrough } from '../writes/write-through.ts';
import type { ConnectorSource } from './connector-source.ts';
import { LOCAL_CONNECTION_ID } from './local-connection-id.ts';
import type { LocalConnections } from './local-connections.ts';
import { LOCAL_TABLE_NAME } from './local-table-name.ts';
import type { Reporter } from './reporter.ts';

/** What {@link openLocalWriteThrough} writes with. */
export interface LocalWriteThroughOptions {
  dynamoClient: DynamoDBClient;
  clock: Clock;
  /** Shared with the poll loop of the same process. */
  snapshotGate: SnapshotWriteGate;
  connections: LocalConnections;
  source: ConnectorSource;
  publisher: EventPublisher;
  state: StateStore;
  clientDeps: ConnectorClientDeps;
  reporter: Reporter;
}

/** The backfill job store of a local run and its write-through proxy. */
export interface LocalWriteThrough {
  backfills: DynamoDbBackfillJobStore;
  writeThrough: WriteThrough;
}

/**
 * The connector proxy of a local run over every connection it polls, and the backfill job store
 * whose jobs count the events of its writes. The caller closes `writeThrough`.
 */
export function openLocalWriteThrough(options: LocalWriteThroughOptions): LocalWriteThrough {
  const { connections, source, clock, reporter } = options;
  // Any connection the process polls, named by the call (`local` when none is): one added at
  // run time is writable at once, one disabled or removed no longer.
  const backfills = new DynamoDbBackfillJobStore({
    client: options.dynamoClient,
    tableName: LOCAL_TABLE_NAME,
    clock,
  });
  const writeThrough = createConnectionWriteThrough({
    snapshotGate: options.snapshotGate,
    // A write's events in a stream with a backfill running count in the job (its `written`).
    backfills,
    connectionFor: (connectionId) =>
      registryWritableConnection(connectionId, {
        registry: connections.registry,
        store: connections.admin.store,
        defaultId: LOCAL_CONNECTION_ID,
        ...(connections.admin.notPolledBecause
          ? { notPolledBecause: connections.admin.notPolledBecause }
          : {}),
      }),
    credentialsOf: (connectionId) =>
      connectionId === undefined || connectionId === LOCAL_CONNECTION_ID
        ? `connection ${LOCAL_CONNECTION_ID} (${source.simulator ? "the built-in simulator's tokens" : ENVIRONMENT_CREDENTIALS})`
        : storedConnectionCredentials(connectionId, "the deployment's ClientToken"),
    publisher: options.publisher,
    state: options.state,
    clock,
    // The pollers' budget of the token: the proxy's requests count in it.
    clientDeps: options.clientDeps,
    onPublishError: (error, operation) =>
      reporter.info(`write-through ${operation}: events not published: ${describeThrown(error)}`),
  });
  return { backfills, writeThrough };
}
