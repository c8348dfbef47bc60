import type { ConnectorClient } from '../connector/connector-client.ts';
import type { ConnectorConfig } from '../connector/connector-config.ts';
import { describeThrown } from '../errors.ts';
import type { StreamDefinition } from '../polling/poll-context.ts';
import type { PollSettings } from '../polling/poll-settings.ts';
import type { TrackedTargets } from '../polling/tracked-targets.ts';
import { registrationKey, type StoredConnection } from './connection.ts';
import { type ConnectionStore, listAllConnections } from './connection-store.ts';
import {
  connectorConfigOf,
  streamsOfConnection,
  untrackedConnectionWarnings,
} from './connection-streams.ts';
import type { TokenCipher } from './token-cipher.ts';

/** A connection being polled: its streams, its client (one budget per token) and a stop signal. */
export interface PolledConnection {
  id: string;
  definitions: readonly StreamDefinition[];
  client: ConnectorClient;
  /** The credentials its client sends, for the connector proxy (absent: not written through). */
  connector?: ConnectorConfig;
  /** Aborted when the connection is disabled or removed: its in-flight poll stops at once. */
  signal: AbortSignal;
  /**
   * Told of each poll of the connection's streams as it starts. Retiring the connection waits
   * for them to end: a poll told to stop finishes the page write it is in, and `remove` must
   * delete the streams' state and snapshots after that write, not before it.
   */
  track?(poll: Promise<unknown>): void;
}

/** What {@link ConnectionRegistry} needs. */
export interface ConnectionRegistryDeps {
  store: ConnectionStore;
  cipher: TokenCipher;
  settings: PollSettings;
  /** The deployment's exports and products, for connections that name none of their own. */
  tracked?: TrackedTargets;
  /** The deployment's endpoint, ClientToken and Client name. */
  deployment: Omit<ConnectorConfig, 'accessToken' | 'portfolioScope'>;
  /** Builds the client of one connection (sharing the transport and the budget ledger). */
  createClient(config: ConnectorConfig): ConnectorClient;
  /** Connections that are not in the store (the CONNECTOR_* one): always polled. */
  fixed: readonly PolledConnection[];
  /**
   * A connection whose token cannot be opened is left out and reported here: once per
   * registration and error, not at every refresh that tries it again.
   */
  onError?(connectionId: string, error: unknown): void;
  /**
   * What a connection as registered polls to no avail (an export stream that names no export):
   * said once per registration, as it joins.
   */
  onWarning?(connectionId: string, message: string): void;
  /**
   * A connection joined the polled ones (`added`: added or enabled; `changed`: registered again
   * with other settings or token) or left them (`disabled`, `removed`), as a refresh found. A
   * connection told `disabled` and then deleted (as `connections remove` does) is told `removed` too.
   */
  onPolling?(connection: PolledConnection, change: PollingChange): void;
}

/** How a refresh changed what is polled of one connection (see ConnectionRegistryDeps.onPolling). */
export type PollingChange = 'added' | 'changed' | 'disabled' | 'removed';

/**
 * The enabled connections of a process and their clients, refreshed from the store: a
 * connection added at run time joins at the next refresh, a disabled or removed one leaves
 * and its in-flight poll is aborted. Tokens are opened once per connection (and registration).
 */
export class ConnectionRegistry {
  private readonly active = new Map<
    string,
    PolledConnection & { key: string; stop: AbortController; polls: Set<Promise<unknown>> }
  >();
  private refreshing: Promise<void> | undefined;
  private again = false;
  /** Changes to `active` run one at a time, so a full refresh and a single one never race. */
  private changes: Promise<unknown> = Promise.resolve();
  /** Numbers the store reads (full and single), so an older read never undoes a newer one. */
  private reads = 0;
  /** The reads started and not yet applied. */
  private readonly pendingReads = new Set<number>();
  /** The read each connection's state was last applied from, while an older read is pending. */
  private readonly appliedFrom = new Map<string, number>();
  /** Each connection that did not open: its registration, what was reported, and the error. */
  private readonly unopened = new Map<string, { key: string; said: string; error: unknown }>();
  /** Connections this process stopped polling as disabled and that are still stored so. */
  private readonly disabled = new Map<string, PolledConnection>();
  /** {@link definitions} until `active` changes: the poll loop asks for it on every tick. */
  private definitionsCache: readonly StreamDefinition[] | undefined;

  constructor(private readonly deps: ConnectionRegistryDeps) {}

  /**
   * Re-reads the store and applies what changed. Calls made while one runs coalesce into
   * one more run after it, so a change told during a refresh is never missed.
   */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      try {
        do {
          this.again = false;
          const read = this.startRead();
          const stored = await this.endReadOnError(read, listAllConnections(this.deps.store));
          await this.exclusive(() => this.apply(stored, read));
        } while (this.again);
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /**
   * Applies one connection's change (one GetItem, not a full read): what the admin API calls
   * after add, disable, enable and remove, so adding the 1,000th connection costs no more
   * than the first.
   */
  async refreshConnection(connectionId: string): Promise<void> {
    const read = this.startRead();
    const stored = await this.endReadOnError(read, this.deps.store.get(connectionId));
    await this.exclusive(async () => {
      try {
        if (this.isNewest(connectionId, read)) await this.applyOne(connectionId, stored);
      } finally {
        this.endRead(read);
      }
    });
  }

  /**
   * Why this registration of an enabled connection is not polled: the error its token's
   * opening last gave (`undefined` once it opens, or when it was never tried).
   */
  openFailure(connection: Pick<StoredConnection, 'id' | 'createdAt'>): unknown {
    const failed = this.unopened.get(connection.id);
    return failed?.key === registrationKey(connection) ? failed.error : undefined;
  }

  /** Brings one connection in line with what the store held for it. */
  private async applyOne(id: string, stored: StoredConnection | undefined): Promise<void> {
    const current = this.active.get(id);
    const changed = current && stored?.enabled && registrationKey(stored) !== current.key;
    if (current && (!stored?.enabled || changed)) {
      await this.retire(id);
      if (!changed) this.deps.onPolling?.(current, stored ? 'disabled' : 'removed');
      if (!changed && stored) this.disabled.set(id, current);
    }
    // `remove` disables first and deletes after: the deletion is told as well, not only the disable.
    const disabledBefore = this.disabled.get(id);
    if (!current && !stored && disabledBefore) this.deps.onPolling?.(disabledBefore, 'removed');
    if (!stored || stored.enabled) this.disabled.delete(id);
    if (!stored?.enabled) this.unopened.delete(id);
    if (stored?.enabled && !this.active.has(id)) {
      await this.open(stored);
      const joined = this.active.get(id);
      if (joined) this.deps.onPolling?.(joined, changed ? 'changed' : 'added');
    }
  }

  private startRead(): number {
    this.reads += 1;
    this.pendingReads.add(this.reads);
    return this.reads;
  }

  private async endReadOnError<T>(read: number, reading: Promise<T>): Promise<T> {
    try {
      return await reading;
    } catch (error) {
      this.endRead(read);
      throw error;
    }
  }

  /**
   * Whether `read` is at least as new as what `id` was last applied from; if so, it is now.
   * A full refresh that listed thousands of connections must not bring back one disabled or
   * removed while it read, nor drop one added meanwhile.
   */
  private isNewest(id: string, read: number): boolean {
    if ((this.appliedFrom.get(id) ?? 0) > read) return false;
    this.appliedFrom.set(id, read);
    return true;
  }

  /** Forgets what no pending read is older than: only a read started before it could undo it. */
  private endRead(read: number): void {
    this.pendingReads.delete(read);
    const oldest = Math.min(...this.pendingReads);
    for (const [id, from] of this.appliedFrom) if (from < oldest) this.appliedFrom.delete(id);
  }

  private exclusive(change: () => Promise<void>): Promise<void> {
    const next = this.changes.then(change);
    this.changes = next.catch(() => undefined);
    return next;
  }

  /** Every polled connection, the fixed ones first. */
  connections(): PolledConnection[] {
    return [...this.deps.fixed, ...this.active.values()];
  }

  /** The streams of every polled connection (the same array until a connection joins or leaves). */
  definitions(): readonly StreamDefinition[] {
    this.definitionsCache ??= this.connections().flatMap((connection) => connection.definitions);
    return this.definitionsCache;
  }

  /** The polled connection of `connectionId`, or undefined once it left. */
  get(connectionId: string): PolledConnection | undefined {
    return this.deps.fixed.find((c) => c.id === connectionId) ?? this.active.get(connectionId);
  }

  /** Stops every stored connection's polls and closes their clients. */
  async close(): Promise<void> {
    await this.refreshing?.catch(() => undefined);
    await this.exclusive(async () => {
      for (const id of [...this.active.keys()]) await this.retire(id);
    });
  }

  /** Applies a full listing from `read`, except to connections a newer read has applied. */
  private async apply(stored: readonly StoredConnection[], read: number): Promise<void> {
    try {
      const listed = new Map(stored.map((c) => [c.id, c]));
      const ids = new Set([...this.active.keys(), ...listed.keys()]);
      for (const id of ids) if (this.isNewest(id, read)) await this.applyOne(id, listed.get(id));
    } finally {
      this.endRead(read);
    }
  }

  private async open(connection: StoredConnection): Promise<void> {
    const { id } = connection;
    if (this.deps.fixed.some((c) => c.id === id)) return;
    try {
      const accessToken = await this.deps.cipher.open(id, connection.accessToken);
      const stop = new AbortController();
      const polls = new Set<Promise<unknown>>();
      this.definitionsCache = undefined;
      const connector = connectorConfigOf(this.deps.deployment, connection, accessToken);
      this.active.set(id, {
        id,
        key: registrationKey(connection),
        definitions: streamsOfConnection(connection, this.deps.settings, this.deps.tracked),
        client: this.deps.createClient(connector),
        connector,
        signal: stop.signal,
        stop,
        polls,
        track: (poll) => {
          const settled = poll.then(
            () => undefined,
            () => undefined,
          );
          polls.add(settled);
          void settled.then(() => polls.delete(settled));
        },
      });
      this.unopened.delete(id);
      for (const warning of untrackedConnectionWarnings(
        connection,
        this.deps.settings,
        this.deps.tracked,
      ))
        this.deps.onWarning?.(id, warning);
    } catch (error) {
      const key = registrationKey(connection);
      const said = `${key} ${describeThrown(error)}`;
      if (this.unopened.get(id)?.said === said) return;
      this.unopened.set(id, { key, said, error });
      this.deps.onError?.(id, error);
    }
  }

  private async retire(id: string): Promise<void> {
    const connection = this.active.get(id);
    if (!connection) return;
    this.active.delete(id);
    this.definitionsCache = undefined;
    connection.stop.abort();
    // Its polls stop at their next request; the write each is in ends first (see `track`).
    await Promise.all(connection.polls);
    await connection.client.close();
  }
}
