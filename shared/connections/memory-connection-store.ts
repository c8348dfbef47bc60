import { parseOrThrow } from '../errors.ts';
import { type StoredConnection, StoredConnectionSchema } from './connection.ts';
import {
  CONNECTION_PAGE_SIZE_DEFAULT,
  ConnectionExistsError,
  type ConnectionPage,
  type ConnectionStore,
  type ListConnectionsOptions,
} from './connection-store.ts';

/** {@link ConnectionStore} in memory, for unit tests; copies on the way in and out. */
export class MemoryConnectionStore implements ConnectionStore {
  private readonly connections = new Map<string, StoredConnection>();

  async create(connection: StoredConnection): Promise<void> {
    const parsed = parseOrThrow(StoredConnectionSchema, connection, `connection ${connection.id}`);
    if (this.connections.has(parsed.id)) throw new ConnectionExistsError(parsed.id);
    this.connections.set(parsed.id, structuredClone(parsed));
  }

  async get(id: string): Promise<StoredConnection | undefined> {
    const connection = this.connections.get(id);
    return connection && structuredClone(connection);
  }

  async listPage(options: ListConnectionsOptions = {}): Promise<ConnectionPage> {
    const limit = options.limit ?? CONNECTION_PAGE_SIZE_DEFAULT;
    const ids = [...this.connections.keys()]
      .sort()
      .filter((id) => options.after === undefined || id > options.after);
    const page = ids.slice(0, limit).map((id) => structuredClone(this.connections.get(id)!));
    return ids.length > limit
      ? { connections: page, next: page.at(-1)!.id }
      : { connections: page };
  }

  async setEnabled(id: string, enabled: boolean): Promise<StoredConnection | undefined> {
    const connection = this.connections.get(id);
    if (!connection) return undefined;
    connection.enabled = enabled;
    return structuredClone(connection);
  }

  async recordNextDue(id: string, nextDueAt: number): Promise<void> {
    const connection = this.connections.get(id);
    if (connection) connection.nextDueAt = nextDueAt;
  }

  async remove(id: string, registeredAt?: string): Promise<boolean> {
    const connection = this.connections.get(id);
    if (registeredAt !== undefined && connection?.createdAt !== registeredAt) return false;
    return this.connections.delete(id);
  }
}
