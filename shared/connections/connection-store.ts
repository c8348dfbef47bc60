import { BridgeError } from '../errors.ts';
import type { StoredConnection } from './connection.ts';

/**
 * The connection store port: connections as data, with their sealed AccessTokens.
 * Adapters: {@link DynamoDbConnectionStore} (AWS and dynalite, the shared state table) and
 * {@link MemoryConnectionStore} (unit tests). Both pass test/connections/connection-store.contract.ts.
 */
export interface ConnectionStore {
  /** Registers a connection. @throws ConnectionExistsError when the id is taken (conditional write). */
  create(connection: StoredConnection): Promise<void>;
  /** Reads one connection (strongly consistent). */
  get(id: string): Promise<StoredConnection | undefined>;
  /** One page of connections ordered by id, starting after `after`; `next` is set while more follow. */
  listPage(options?: ListConnectionsOptions): Promise<ConnectionPage>;
  /** Turns polling on or off; returns the updated connection, or undefined when it does not exist. */
  setEnabled(id: string, enabled: boolean): Promise<StoredConnection | undefined>;
  /** Records when the connection's earliest stream is next due; does nothing once it is removed. */
  recordNextDue(id: string, nextDueAt: number): Promise<void>;
  /**
   * Deletes the connection and its sealed token; false when it did not exist. With
   * `registeredAt`, only the registration created then: a connection added again since stays.
   */
  remove(id: string, registeredAt?: string): Promise<boolean>;
}

/** Options of {@link ConnectionStore.listPage}. */
export interface ListConnectionsOptions {
  /** Most connections in the page (default {@link CONNECTION_PAGE_SIZE_DEFAULT}). */
  limit?: number;
  /** The `next` of the previous page. */
  after?: string;
  /**
   * Strongly consistent (the default): a connection created, changed or removed just before
   * is listed as it now is, as the admin API's callers expect. False: eventually consistent,
   * half the read units, and a write of the last second or so may not show yet; for the
   * planner, whose next run lists again (a connection just added is planned one run later, one
   * just removed or disabled once more, and its poller, reading it strongly consistent, skips
   * that job).
   */
  consistent?: boolean;
}

/** One page of {@link ConnectionStore.listPage}. */
export interface ConnectionPage {
  connections: StoredConnection[];
  /** Pass as `after` for the next page; absent on the last page. */
  next?: string;
}

/** Default page size of connection listings. */
export const CONNECTION_PAGE_SIZE_DEFAULT = 100;

/**
 * The most connections {@link readConnectionsAfter} asks the store for at once: about 0.6 MB
 * of items, one Query within DynamoDB's 1 MB a call.
 */
const READ_AFTER_PAGE_MAX = 1000;

/**
 * A connection with this id exists already; `detail` says more (how another add differs from
 * it), after a comma.
 */
export class ConnectionExistsError extends BridgeError {
  override name = 'ConnectionExistsError';
  /** The add's fields that differ from the stored definition, as `detail` names them; undefined when not compared. */
  readonly differences: readonly string[] | undefined;
  constructor(
    readonly connectionId: string,
    options: { cause?: unknown; detail?: string; differences?: readonly string[] } = {},
  ) {
    const { detail, differences, ...rest } = options;
    super(
      `connection ${connectionId} exists already${detail === undefined ? '' : `, ${detail}`}`,
      rest,
    );
    this.differences = differences;
  }
}

/**
 * Every connection of the store, page by page (`pageSize` each), strongly consistent unless
 * `options.consistent` is false (see {@link ListConnectionsOptions.consistent}).
 * @example for await (const page of connectionPages(store)) plan(page)
 */
export async function* connectionPages(
  store: ConnectionStore,
  pageSize = CONNECTION_PAGE_SIZE_DEFAULT,
  options: Pick<ListConnectionsOptions, 'consistent'> = {},
): AsyncIterable<StoredConnection[]> {
  let after: string | undefined;
  do {
    const page = await store.listPage({ ...options, limit: pageSize, ...(after ? { after } : {}) });
    if (page.connections.length > 0) yield page.connections;
    after = page.next;
  } while (after);
}

/** Every connection of the store, ordered by id. */
export async function listAllConnections(store: ConnectionStore): Promise<StoredConnection[]> {
  const all: StoredConnection[] = [];
  for await (const page of connectionPages(store)) all.push(...page);
  return all;
}

/**
 * The first `want` connections of the store (strongly consistent) whose ids sort after `after`
 * (from the first without it), in id order: the store's pages (1,000 at most each) are read
 * from there until that many came or none follow, so a page of a listing reads its own
 * connections and not the ones before it. Fewer than `want`: no connection follows them.
 * @example await readConnectionsAfter(store, 'hotel-0099', 101)
 */
export async function readConnectionsAfter(
  store: ConnectionStore,
  after: string | undefined,
  want: number,
): Promise<StoredConnection[]> {
  const read: StoredConnection[] = [];
  let next = after;
  while (read.length < want) {
    const page = await store.listPage({
      limit: Math.min(want - read.length, READ_AFTER_PAGE_MAX),
      ...(next === undefined ? {} : { after: next }),
    });
    read.push(...page.connections);
    if (page.next === undefined) break;
    next = page.next;
  }
  return read;
}
