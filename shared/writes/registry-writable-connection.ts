import {
  type ConnectionAdminDeps,
  ConnectionNotFoundError,
} from '../connections/connection-admin.ts';
import type { ConnectionRegistry, PolledConnection } from '../connections/connection-registry.ts';
import type { ConnectionStore } from '../connections/connection-store.ts';
import { ConnectionUnwritableError, type WritableConnection } from './connection-write-through.ts';

/** What {@link registryWritableConnection} reads: the process's polled connections and the store. */
export interface RegistryWritableDeps {
  registry: Pick<ConnectionRegistry, 'get' | 'refreshConnection'>;
  store: Pick<ConnectionStore, 'get'>;
  /** Why an enabled stored connection is not polled (its token did not open), as its view says. */
  notPolledBecause?: ConnectionAdminDeps['notPolledBecause'];
  /** The connection a call that names none writes through (`local` under `start`). */
  defaultId: string;
}

function writable(polled: PolledConnection): WritableConnection | undefined {
  if (!polled.connector) return undefined;
  return {
    id: polled.id,
    connector: polled.connector,
    // Every stream of a connection carries the connection's scope.
    scope: polled.definitions[0]?.scope ?? {},
    streams: polled.definitions,
    signal: polled.signal,
    ...(polled.track ? { track: polled.track } : {}),
  };
}

/**
 * The connection a proxied call of `change-bridge start` writes through: one the process polls
 * (the CONNECTOR_* one, or an enabled stored one whose token opened), with the credentials its
 * pollers use. A stored one not polled yet is read again first (added by another caller an
 * instant ago).
 * @throws ConnectionNotFoundError when none has the id (never added, or removed);
 * ConnectionUnwritableError when it is disabled or its token does not open.
 */
export async function registryWritableConnection(
  connectionId: string | undefined,
  deps: RegistryWritableDeps,
): Promise<WritableConnection> {
  const id = connectionId ?? deps.defaultId;
  const polled = deps.registry.get(id);
  const found = polled && writable(polled);
  if (found) return found;
  const stored = await deps.store.get(id);
  if (!stored) throw new ConnectionNotFoundError(`connection ${id} does not exist`);
  if (!stored.enabled)
    throw new ConnectionUnwritableError(
      `connection ${id} is disabled: enable it to write through it`,
    );
  await deps.registry.refreshConnection(id);
  const refreshed = deps.registry.get(id);
  const opened = refreshed && writable(refreshed);
  if (opened) return opened;
  const reason = deps.notPolledBecause?.(stored);
  throw new ConnectionUnwritableError(
    `connection ${id} is not polled${reason === undefined ? '' : `: ${reason}`}`,
  );
}
