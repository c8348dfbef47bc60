import type { Scope } from '../changes/entity-types.ts';
import type { ConnectorConfig } from '../connector/connector-config.ts';
import {
  borrowedTransport,
  createUndiciTransport,
  type HttpTransport,
} from '../connector/http-transport.ts';
import { BridgeError } from '../errors.ts';
import type { StreamDefinition } from '../polling/poll-context.ts';
import {
  createWriteThrough,
  type WriteThrough,
  type WriteThroughOptions,
} from './write-through.ts';

/** A connection the connector proxy may write through, as it stands at the call. */
export interface WritableConnection {
  id: string;
  /** Its credentials: the deployment's endpoint and ClientToken with its AccessToken. */
  connector: ConnectorConfig;
  /** Its scope, for records that carry none. */
  scope: Scope;
  /** Its streams: their ids and volatile fields. */
  streams: readonly StreamDefinition[];
  /** Aborted once it is disabled or removed: a call that finds it so is not sent. */
  signal?: AbortSignal;
  /** Told of each call while it runs, so a removal waits for it (no request after `remove`). */
  track?(call: Promise<unknown>): void;
  /**
   * Told when the connector refused its credentials (401): a lookup that keeps them reads them
   * again for the next call, as a token may have been rotated since it read them.
   */
  refused?(): void;
}

/** The connector's status for an authorization error (design.md, status per error category). */
const AUTHORIZATION_ERROR_STATUS = 401;

/** The connection exists but cannot be written through now (disabled, its token not opened); a 409. */
export class ConnectionUnwritableError extends BridgeError {
  override name = 'ConnectionUnwritableError';
}

/** What {@link createConnectionWriteThrough} runs on: the write-through's ports, any connection. */
export interface ConnectionWriteThroughOptions
  extends Omit<WriteThroughOptions, 'connectionId' | 'connector' | 'scope' | 'streams'> {
  /**
   * The connection a call names, or the default one when it names none, looked up at each call:
   * a connection added at run time is writable at once, one disabled or removed no longer.
   * @throws ConnectionNotFoundError, ConnectionUnwritableError
   */
  connectionFor(connectionId: string | undefined): Promise<WritableConnection>;
  /** Where the credentials of a connection come from (see WriteThrough.credentialsOf); no lookup. */
  credentialsOf(connectionId: string | undefined): string;
}

/**
 * The connector proxy over every connection of the deployment: each call goes with the
 * credentials of the connection it names (`connectionId`), else the default one, as
 * {@link createWriteThrough} sends it; one keep-alive pool (`transport`) for all of them.
 */
export function createConnectionWriteThrough(options: ConnectionWriteThroughOptions): WriteThrough {
  const { connectionFor, credentialsOf, transport: given, ...ports } = options;
  const transport: HttpTransport = given ?? createUndiciTransport();
  const shared = borrowedTransport(transport);
  return {
    async forward(operation, body, connectionId) {
      const connection = await connectionFor(connectionId);
      // Checked and tracked in one turn: a removal that began since is seen here, and one that
      // begins after waits for this call.
      if (connection.signal?.aborted)
        throw new ConnectionUnwritableError(
          `connection ${connection.id} was disabled or removed during the call`,
        );
      const call = createWriteThrough({
        ...ports,
        connectionId: connection.id,
        connector: connection.connector,
        scope: connection.scope,
        streams: connection.streams,
        transport: shared,
        credentialSource: credentialsOf(connection.id),
      }).forward(operation, body);
      connection.track?.(call);
      const result = await call;
      if (result.status === AUTHORIZATION_ERROR_STATUS) connection.refused?.();
      return result;
    },
    credentialsOf,
    close: () => transport.close(),
  };
}
