import type { Scope } from '../changes/entity-types.ts';
import type { Clock } from '../clock.ts';
import type { ConnectorClientDeps } from '../connector/client.ts';
import type { ConnectorConfig } from '../connector/connector-config.ts';
import type { HttpTransport } from '../connector/http-transport.ts';
import type { OperationName } from '../connector/operations.ts';
import type { StreamDefinition } from '../polling/poll-context.ts';
import type { SnapshotWriteGate } from '../polling/snapshot-write-gate.ts';
import type { EventPublisher } from '../publish/publisher.ts';
import type { StateStore } from '../state/state-store.ts';

/** What the write-through proxy runs on: the configured connection and the poller's ports. */
export interface WriteThroughOptions {
  connectionId: string;
  /** The connection's credentials: callers of the proxy never send connector tokens. */
  connector: ConnectorConfig;
  /** The connection's scope, for records that carry none. */
  scope: Scope;
  /** The same publisher the pollers use (EventBridge in AWS, the local router locally). */
  publisher: EventPublisher;
  /** The same snapshots the pollers keep. */
  state: StateStore;
  /** The configured streams: their ids and volatile fields. */
  streams: readonly StreamDefinition[];
  clock: Clock;
  /** The HTTP transport (default: undici). */
  transport?: HttpTransport;
  /**
   * What the pollers' clients of the connection are built with: the ledger and margin of the
   * token's budget, so the proxy's requests draw from the budget the pollers spend (one budget
   * per AccessToken, design.md); without them, a budget of this process's own.
   */
  clientDeps?: Pick<ConnectorClientDeps, 'budgetLedger' | 'budgetMarginMs' | 'random'>;
  /**
   * Told when the events of a successful write could not be published (the publisher failed,
   * or the connector's 200 broke the contract, so there is nothing to build them from); the
   * connector's answer is still returned (the write happened, and repeating an add would add
   * twice). Without it such a failure throws.
   */
  onPublishError?: (error: unknown, operation: OperationName) => void;
  /**
   * The pollers' gate in this process (`start`): a write waits for the live pages of its
   * stream in flight to store, and pages opened meanwhile store with conditions. Without one
   * (the AWS admin Lambda), the pollers' live pages of these entities are always guarded.
   */
  snapshotGate?: SnapshotWriteGate;
  /** Where `connector` came from, for messages (default: `the configured connection`). */
  credentialSource?: string;
  /**
   * The backfill jobs (BackfillJobStore): a write's events in a stream with a backfill part
   * running are added to that job's count of them (its `written`), so the job waits for their
   * deliveries too and counts the `created` they sent ahead of a change as its own. Without it,
   * not counted.
   */
  backfills?: BackfillWrittenCounts;
}

/** Where a write's events in a stream with a backfill part running are counted (BackfillJobStore.addWritten). */
export interface BackfillWrittenCounts {
  addWritten(
    jobId: string,
    streamId: string,
    counts: { events: number; announced: number },
  ): Promise<void>;
}
