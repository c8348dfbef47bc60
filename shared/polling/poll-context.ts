import type { Scope } from '../changes/entity-types.ts';
import type { Clock } from '../clock.ts';
import type { BudgetPriority } from '../connector/budget/budget-types.ts';
import type { CallOptions } from '../connector/client.ts';
import type { ConnectorClient } from '../connector/connector-client.ts';
import type { EventPublisher } from '../publish/publisher.ts';
import type { StateStore, StreamState } from '../state/state-store.ts';
import type { BacklogGauge } from './backlog-gauge.ts';
import type { DeadlinePace } from './deadline-pace.ts';
import type { OverlapMemory } from './overlap-memory.ts';
import type { PageChanges } from './page-changes.ts';
import type { PollSpec } from './poll-spec.ts';
import type { RecordBudget } from './record-budget.ts';
import type { SnapshotWriteGate } from './snapshot-write-gate.ts';
import type { SweepSlots } from './sweep-slots.ts';
import type { WindowSettings } from './windows.ts';

/** A product whose prices are followed; Day units start at local midnight of `timeZone`. */
export interface ProductTarget {
  productId: string;
  /** IANA zone of the product's enterprise (default UTC). */
  timeZone: string;
}

/** How one stream is polled: its identity and its configuration. */
export interface StreamDefinition {
  streamId: string;
  connectionId: string;
  spec: PollSpec;
  scope: Scope;
  intervalMs: number;
  initialSync: 'baseline' | 'emit';
  /** Export ids to follow (tracked-ids strategy). */
  trackedIds?: readonly string[];
  /** Products to price and the zone of each one's enterprise (product-prices strategy). */
  products?: readonly ProductTarget[];
  /** Days priced ahead (at most 100). */
  priceHorizonDays?: number;
  /**
   * Offset of this stream's polls within its interval (spreads a connection's streams); of its
   * first slot for a stream polled in several (see pollSlotsOf).
   */
  phaseMs?: number;
  /**
   * The instants this stream's sweeps (or deletion reads) may take (spreads a connection's
   * sweeps; see sweepSlotsOf). Without them, a sweep is due a period after the last.
   */
  sweepSlots?: SweepSlots;
}

/**
 * What a strategy's run tells its poll: true, caught up (due at its next slot); false, stopped
 * short of the end (due again at once); `{ dueAt }`, caught up and due at `dueAt` (a stream
 * polled in several slots that took the slots due by the job's horizon, see PollDeps.dueBy).
 */
export type StrategyRun = boolean | { dueAt: number };

/** Observes a poller's work (metrics, progress bars, tests). */
export interface PollObserver {
  onChanges?(streamId: string, changes: PageChanges): void;
  /** Called after events are published and before the state is committed (crash tests). */
  afterPublish?(streamId: string, changes: PageChanges): void | Promise<void>;
  onWindow?(streamId: string, window: { startUtc: string; endUtc: string }, records: number): void;
}

/** Everything a poll run needs. */
export interface PollDeps {
  store: StateStore;
  client: ConnectorClient;
  publisher: EventPublisher;
  clock: Clock;
  windows: WindowSettings;
  /** Limitation.Count of each page (1..1000). */
  pageCount: number;
  observer?: PollObserver;
  /**
   * The process's gate between polls' pages and the write-through proxy (`start`): without one
   * (AWS, where the proxy runs elsewhere), every page of the entities the proxy writes (a first
   * sync's and a backfill pass's too) stores its snapshots with conditions.
   */
  snapshotGate?: SnapshotWriteGate;
  /** Epoch ms after which no new page or window starts (a Lambda's remaining time). */
  deadline?: number;
  /**
   * Epoch ms by which the streams this run polls are due (an AWS poll job's horizon: the
   * planner's next run plans what falls due after it). A stream polled in several slots of its
   * interval (see pollSlotsOf) takes every slot due by then; without it, the slot due now.
   */
  dueBy?: number;
  /**
   * The pace of the job's connector requests against `deadline` (see deadlinePace), shared by
   * the job's streams; a run without one paces its own requests from its first page.
   */
  pace?: DeadlinePace;
  /** Aborts in-flight connector calls when the process stops; the window is left for a resume. */
  signal?: AbortSignal;
  /**
   * The caller is the store's only poller and never polls one stream twice at once (the local
   * runtime: one process per data dir, its loop runs each stream once): no lease is taken, which
   * saves two conditional writes per poll. Default false (Lambda pollers share the table).
   */
  solePoller?: boolean;
  /** Pauses detection (at a page boundary, cursor saved) while delivery lags (default: never). */
  backlog?: BacklogGauge;
  /**
   * Told of each page of bulk work (a first sync, a backfill, a catch-up window) from its arrival
   * until its changes are stored: `begin` returns what ends it. The local run's bulk dispatch
   * lane waits meanwhile (default: not told).
   */
  bulkPages?: { begin(): () => void };
  /**
   * Bounds the records the process's polls hold in flight (the local loop's; default: none, a
   * Lambda poller runs one connection's job). Windowed pages claim it before they are read.
   */
  records?: RecordBudget;
  /**
   * Lets windowed polls pass over records the window before stored, re-read unchanged in the
   * overlap (the local loop's and the poller Lambda's, for the container's life; default: none).
   */
  overlapMemory?: OverlapMemory;
  /**
   * The run reads the stream's live window (and a sweep when due), not a slice of its backfill
   * pass: the local loop's run of a stream whose pass waits for a catch-up slot (default false).
   */
  passWaits?: boolean;
}

/**
 * Whether records first seen now are published as `created`: always after the first sync; during
 * it, when the stream's own mode (set by a backfill) or else the configured one is `emit`.
 */
export function emitsCreated(definition: StreamDefinition, state: StreamState): boolean {
  return state.initialSyncDone || (state.initialSync ?? definition.initialSync) === 'emit';
}

/**
 * Call options carrying the run's abort signal and the stream's claim on the token's budget:
 * `live` for a poll of a caught-up stream (it registers the stream's interval, which sizes
 * the live reserve), `bulk` for first syncs, catch-up windows, backfills and sweeps.
 */
export function callOptions(
  deps: PollDeps,
  definition: StreamDefinition,
  priority: BudgetPriority,
): CallOptions {
  return {
    ...(deps.signal ? { signal: deps.signal } : {}),
    budget:
      priority === 'live'
        ? { priority, streamId: definition.streamId, intervalMs: definition.intervalMs }
        : { priority },
  };
}

/** What one page (or listing, or sweep) of a stream read and published. */
export interface PageCounts {
  records: number;
  events: number;
  /** Of `events`, the backfill's `created` sent ahead of a live change: the pass's events. */
  announced?: number;
  /** Of `records`, those set aside for breaking their schema, and the last one's error. */
  setAside?: { records: number; error: string; at: number };
}

/**
 * The patch noting a page's records set aside on the stream (see StreamState.recordsSetAside),
 * for the save that commits that page; nothing without any. Pure.
 * @example await state.save({ window: next, ...setAsideNoted(state.current, counts) })
 */
export function setAsideNoted(
  state: Pick<StreamState, 'recordsSetAside'>,
  counts: PageCounts,
): Pick<StreamState, 'recordsSetAside' | 'lastSetAside'> | Record<string, never> {
  const setAside = counts.setAside;
  if (!setAside || setAside.records === 0) return {};
  return {
    recordsSetAside: (state.recordsSetAside ?? 0) + setAside.records,
    lastSetAside: { error: setAside.error, at: setAside.at },
  };
}

/**
 * The stream's progress counters advanced by `counts`: a patch for the same save that commits
 * that work (a page cursor, a watermark), so a run cut off and resumed counts each page once
 * and the counters cost no write of their own. Pure.
 * @example await state.save({ window: next, ...advanceCounters(state.current, { records: 1000, events: 1000 }) })
 */
export function advanceCounters(
  state: Pick<StreamState, 'recordsRead' | 'eventsPublished'>,
  counts: PageCounts,
): Pick<StreamState, 'recordsRead' | 'eventsPublished'> {
  return {
    recordsRead: (state.recordsRead ?? 0) + counts.records,
    eventsPublished: (state.eventsPublished ?? 0) + counts.events,
  };
}

/**
 * The patch of a save that completes the first sync (or a poll after it): `initialSyncDone`,
 * the advanced counters, and, when this save is the one completing it, the first sync's
 * figures (`firstSync`: now and those counters). Pure.
 * @example state.stage({ watermark, ...syncCompleted(state.current, { records: 12, events: 12 }, now) })
 */
export function syncCompleted(
  state: StreamState,
  counts: PageCounts,
  now: number,
): Pick<StreamState, 'initialSyncDone' | 'recordsRead' | 'eventsPublished' | 'firstSync'> {
  const counters = advanceCounters(state, counts);
  if (state.initialSyncDone) return { initialSyncDone: true, ...counters };
  return {
    initialSyncDone: true,
    ...counters,
    firstSync: {
      doneAt: now,
      recordsRead: counters.recordsRead ?? 0,
      eventsPublished: counters.eventsPublished ?? 0,
    },
  };
}

/** Mutable view of the stream state that saves itself with optimistic concurrency. */
export interface StateHandle {
  current: StreamState;
  /** The state as last written, or as read: `current` without what is only staged. */
  saved: StreamState;
  save(patch: Partial<StreamState>): Promise<StreamState>;
  /**
   * Applies `patch` to `current` without a write: the next save writes it with its own patch.
   * For a commit that another save follows at once (a strategy's last one, before the poll
   * records its success), so a quiet poll writes its state once, not twice.
   */
  stage(patch: Partial<StreamState>): void;
}

/** Wraps a stream state so each save uses the version it last saw. */
export function stateHandle(store: StateStore, initial: StreamState): StateHandle {
  const handle: StateHandle = {
    current: initial,
    saved: initial,
    async save(patch) {
      handle.current = await store.saveStream(
        { ...handle.current, ...patch },
        handle.current.version,
      );
      handle.saved = handle.current;
      return handle.current;
    },
    stage(patch) {
      handle.current = { ...handle.current, ...patch };
    },
  };
  return handle;
}

/**
 * A {@link StateStore} that hands every call to `store`: the base of a wrapper that overrides a
 * few methods (`{ ...delegatingStateStore(store), saveStream: ... }`), a class's prototype
 * methods not being copied by a spread of `store` itself.
 */
export function delegatingStateStore(store: StateStore): StateStore {
  return {
    getSnapshots: (streamId, entityIds) => store.getSnapshots(streamId, entityIds),
    putSnapshots: (streamId, snapshots) => store.putSnapshots(streamId, snapshots),
    replaceSnapshots: (streamId, replacements) => store.replaceSnapshots(streamId, replacements),
    deleteSnapshots: (streamId, entityIds) => store.deleteSnapshots(streamId, entityIds),
    scanSnapshots: (streamId, options) => store.scanSnapshots(streamId, options),
    getStream: (streamId) => store.getStream(streamId),
    listStreams: (filter, options) => store.listStreams(filter, options),
    saveStream: (state, expectedVersion) => store.saveStream(state, expectedVersion),
    deleteStream: (streamId) => store.deleteStream(streamId),
    deleteStreamState: (streamId, expectedVersion) =>
      store.deleteStreamState(streamId, expectedVersion),
    markStreamRemoved: (streamId, removedAt) => store.markStreamRemoved(streamId, removedAt),
    unmarkStreamRemoved: (note) => store.unmarkStreamRemoved(note),
    listRemovedStreams: (limit) => store.listRemovedStreams(limit),
    acquireLease: (streamId, owner, ttlMs, now) => store.acquireLease(streamId, owner, ttlMs, now),
    releaseLease: (streamId, owner) => store.releaseLease(streamId, owner),
  };
}

/** `store` with every stream state it writes also told to `onSaved` (as written, new version). */
export function withSavedStates(
  store: StateStore,
  onSaved: (state: StreamState) => void,
): StateStore {
  return {
    ...delegatingStateStore(store),
    saveStream: async (state, expectedVersion) => {
      const written = await store.saveStream(state, expectedVersion);
      onSaved(written);
      return written;
    },
  };
}

/**
 * What a strategy throws when it did its work but one part of it was refused (a product the
 * connector no longer knows, among others it priced): its state is staged as after a success,
 * and the poll is recorded as failed with `refusal` while it stays due at its interval, not
 * after a growing backoff, so the parts that work keep their pace.
 */
export class PartialPollFailure extends Error {
  override name = 'PartialPollFailure';
  constructor(readonly refusal: Error) {
    super(refusal.message, { cause: refusal });
  }
}
