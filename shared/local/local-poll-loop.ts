import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ConnectionRegistry } from '../connections/connection-registry.ts';
import { describeThrown } from '../errors.ts';
import { maxBacklogFromEnv } from '../polling/backlog-gauge.ts';
import { OverlapMemory } from '../polling/overlap-memory.ts';
import type { PollDeps } from '../polling/poll-context.ts';
import type { PollLoop } from '../polling/poll-loop-options.ts';
import { startPollLoop } from '../polling/poll-runner.ts';
import type { PollSettings } from '../polling/poll-settings.ts';
import { RecordBudget } from '../polling/record-budget.ts';
import type { SnapshotWriteGate } from '../polling/snapshot-write-gate.ts';
import type { StateChangeNotices } from '../polling/state-change-notices.ts';
import type { LocalConfig } from './local-config.ts';
import type { LocalDispatch } from './local-dispatch.ts';
import { LOCAL_TABLE_NAME } from './local-table-name.ts';
import { SqsBacklogGauge } from './queue-backlog-gauge.ts';
import type { Reporter } from './reporter.ts';
import { storeWriteProbe } from './store-probe.ts';

/** The lease owner of every local run's poller (see startBridge). */
const LOCAL_POLL_OWNER = 'local';

/** What {@link startLocalPollLoop} polls with. */
export interface LocalPollLoopOptions
  extends Pick<PollDeps, 'store' | 'client' | 'publisher' | 'clock'> {
  /** Shared with the write-through proxy of the same process. */
  snapshotGate: SnapshotWriteGate;
  config: LocalConfig;
  env: Record<string, string | undefined>;
  settings: PollSettings;
  /** The dispatch queues, whose backlog pauses detection. */
  dispatch: Pick<LocalDispatch, 'sqsClient' | 'queueUrls' | 'bulkPages'>;
  /** The connections polled, read at each tick. */
  registry: ConnectionRegistry;
  stateChanges: StateChangeNotices;
  reporter: Reporter;
  /** The local DynamoDB, probed while a stream is held back by a full disk. */
  dynamoClient: DynamoDBClient;
}

/**
 * Starts the poll loop of a local run over every connection of the registry: the sole poller
 * of its data dir (no leases), with backpressure from the dispatch queue, a bounded share of
 * records in flight, and its outcomes, held streams and failures told to the reporter.
 */
export function startLocalPollLoop(options: LocalPollLoopOptions): PollLoop {
  const { config, env, settings, dispatch, registry, reporter, clock } = options;
  const pollDeps: PollDeps = {
    store: options.store,
    client: options.client,
    publisher: options.publisher,
    clock,
    windows: settings.windows,
    pageCount: settings.pageCount,
    // One process at a time opens a data dir (LevelDB locks it) and its loop runs each stream
    // once at a time: the poller takes no leases.
    solePoller: true,
    // Backpressure: detection pauses while the dispatch queue holds more than the bound.
    backlog: new SqsBacklogGauge(
      dispatch.sqsClient,
      dispatch.queueUrls,
      maxBacklogFromEnv(env.BRIDGE_MAX_BACKLOG),
    ),
    // The bulk dispatch lane waits while a page of bulk reading is in hand.
    bulkPages: dispatch.bulkPages,
    // Many busy streams at once (1,000 hotels of one chain) hold a bounded share of pages.
    records: new RecordBudget(config.pollMaxRecordsInFlight),
    // A burst re-read in the next windows' overlap is passed over, not judged again.
    overlapMemory: new OverlapMemory(),
    // The write-through proxy below shares this process: live pages store in batches unless
    // a proxied write of their stream overlaps them.
    snapshotGate: options.snapshotGate,
  };
  return startPollLoop({
    definitions: () => registry.definitions(),
    connectionOf: (definition) => registry.get(definition.connectionId),
    deps: pollDeps,
    owner: LOCAL_POLL_OWNER,
    // A due stream waits at most a quarter interval (250 ms at most) for the planner to see it.
    tickMs: Math.min(config.pollIntervalMs / 4, 250),
    concurrency: config.pollConcurrency,
    stateChanges: options.stateChanges,
    onOutcome: (outcome) => reporter.pollOutcome(outcome),
    // A poll whose failure the store could not record (a full disk) is the stream's line,
    // held back by its backoff; this one is the loop's own failures.
    onStreamHeld: (held) => reporter.streamHeld(held),
    onStreamResumed: (resumed) => reporter.streamResumed(resumed),
    // Held streams poll again within seconds of the disk having room, not after their backoff.
    probeWrites: storeWriteProbe(options.dynamoClient, LOCAL_TABLE_NAME, clock),
    onStoreWritable: (released) => reporter.storeWritable(released),
    onError: (error, during) =>
      reporter.warn(
        `${during === 'state read' ? 'reading the stream states' : 'planning a poll tick'} failed: ${describeThrown(error)}`,
      ),
  });
}
