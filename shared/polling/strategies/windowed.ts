import type { BudgetPriority } from '../../connector/budget/budget-types.ts';
import type { StreamState } from '../../state/state-store.ts';
import { announcedToPass, liveJudging, partStillCurrent } from '../backfill-state.ts';
import { pollPace } from '../deadline-pace.ts';
import { WindowOverlap } from '../overlap-screen.ts';
import type { Observation } from '../page-changes.ts';
import {
  advanceCounters,
  emitsCreated,
  type PollDeps,
  type StateHandle,
  type StreamDefinition,
  setAsideNoted,
  syncCompleted,
} from '../poll-context.ts';
import type { WindowedPollSpec } from '../poll-spec.ts';
import { isLiveWindow, nextWindow, reachesPresent } from '../windows.ts';
import { readWindow } from './window-pages.ts';

/** What a windowed run did. */
export interface WindowedRunResult {
  windows: number;
  records: number;
  caughtUp: boolean;
  /** Stopped early because the undelivered backlog was above its bound. */
  paused?: boolean;
}

/**
 * During the first sync of a stream that started empty, a record last updated before that sync
 * began (minus the overlap) can only have been seen in this same sync, in an overlapping window
 * with the same content: its snapshot read is spared. That halves the store work of a backfill.
 * Records without UpdatedUtc, and everything after the first sync, are always read.
 */
function mayHaveSnapshot(observation: Observation, state: StateHandle, deps: PollDeps): boolean {
  const startedAt = state.current.initialSyncStartedAt;
  if (state.current.initialSyncDone || startedAt === null || startedAt === undefined) return true;
  const updated = observation.record === null ? undefined : observation.record.UpdatedUtc;
  if (typeof updated !== 'string') return true;
  return Date.parse(updated) >= startedAt - deps.windows.overlapMs;
}

/**
 * During the first sync of a stream that started empty, snapshots stored before it began are
 * not its own: a reset (a backfill of a stream whose first sync had not completed, `streams
 * reset`) deletes the stream's snapshots while its old poller may still store pages, and those
 * stored behind the deletion would spare their entities the `created` of an emitting sync.
 * Undefined (every snapshot counts) once the first sync is done.
 */
function ownSnapshotsSince(state: StateHandle): number | undefined {
  if (state.current.initialSyncDone) return undefined;
  return state.current.initialSyncStartedAt ?? undefined;
}

/**
 * The `lastSweepAt` a first sync leaves when it reaches the present at `nowMs`. A sweep compares
 * every stored id with the live ones, so one after the first sync finds a record deleted while
 * it ran: the sync counts as a sweep ending now. A deletion read asks only for the records
 * deleted since its last run, and one deleted during the sync after the sync read it is in no
 * later window (its `UpdatedUtc` need not move): the read's first window starts where the sync
 * began (and is due a period after it). A state without that start (stored before it was kept)
 * counts from now. Pure.
 */
export function firstSweepAt(spec: WindowedPollSpec, state: StreamState, nowMs: number): number {
  if (spec.sweep || !spec.deletions) return nowMs;
  return state.initialSyncStartedAt ?? nowMs;
}

/** Whether delivery lags past its bound; the run then stops with its cursor saved. */
export async function backlogAboveBound(
  deps: PollDeps,
  result: { paused?: boolean },
): Promise<boolean> {
  if (!deps.backlog || !(await deps.backlog.aboveBound())) return false;
  result.paused = true;
  return true;
}

/** A bulk window's reading against the backlog bound, from {@link backlogBoundary}. */
export interface BacklogBoundary {
  /** True once a page left the backlog above its bound: the page in hand is the last. */
  reached(): boolean;
  /** Reads the gauge after a page (once it is reached, no more). */
  check(): Promise<void>;
}

/**
 * Stops a bulk window's reading one page after the page that leaves the backlog above its
 * bound: the page after it was read ahead already (a connector request spent), and dropped it
 * would be requested again when the run resumes, two requests a page while the backlog sits at
 * its bound. That page is taken instead, reading none ahead of it (`ahead: () => !reached()`).
 */
export function backlogBoundary(deps: PollDeps, result: { paused?: boolean }): BacklogBoundary {
  let high = false;
  return {
    reached: () => high,
    async check() {
      if (!high) high = await backlogAboveBound(deps, result);
    },
  };
}

/** Whether the run must stop: the process stops, or the invocation's deadline passed. */
export function pastDeadline(deps: PollDeps): boolean {
  if (deps.signal?.aborted) return true;
  return deps.deadline !== undefined && deps.clock.now() >= deps.deadline;
}

/**
 * Runs windows until the stream is caught up (or the deadline passes). Each window's end is
 * fixed before its first page; after each page is published and stored, its Cursor is saved
 * (with the stream's records-read and events-published counters, in the same write) so a
 * poller cut off resumes at the next page; the watermark moves to the window end only
 * when the whole window is done (design.md, Windows). A stream on a `baseline` first sync
 * stores records silently until it reaches the present.
 */
export async function runWindowed(
  definition: StreamDefinition,
  spec: WindowedPollSpec,
  deps: PollDeps,
  state: StateHandle,
): Promise<WindowedRunResult> {
  const result: WindowedRunResult = { windows: 0, records: 0, caughtUp: false };
  const needsRead = (observation: Observation) => mayHaveSnapshot(observation, state, deps);
  // A stream whose deletes are learnt by a second request is judged on more than its records.
  const memory = spec.deletedAmong ? undefined : deps.overlapMemory;
  const pace = pollPace(deps);
  // A window's first page is asked for at once: not when it would still be on its way at the deadline.
  while (!pastDeadline(deps) && pace.nextFits()) {
    let window = state.current.window;
    // Only a new window from the watermark this process's last window of the stream committed
    // may pass over what that window stored.
    const recalled =
      window === null ? memory?.recall(definition.streamId, state.current.watermark) : undefined;
    memory?.forget(definition.streamId);
    if (window === null) {
      const next = nextWindow(state.current.watermark, deps.clock.now(), deps.windows);
      if (next === null) {
        result.caughtUp = true;
        break;
      }
      window = { ...next, cursor: null, count: deps.pageCount, pages: 0 };
      const firstSyncOfEmptyStream =
        state.current.watermark === null && !state.current.initialSyncDone;
      // Written with the first page's cursor (or the watermark, for a one-page window): a
      // poller cut off before that starts a new window from the same watermark, which reads
      // the same records again, so a quiet poll spends no write on a window it ends at once.
      state.stage({
        window,
        ...(firstSyncOfEmptyStream ? { initialSyncStartedAt: deps.clock.now() } : {}),
      });
    }
    // A caught-up stream's window reaching the present from not far back is a live poll;
    // anything else (a first sync, a backfill, a catch-up window after an outage or cut at
    // three months) is bulk work behind it.
    const priority: BudgetPriority =
      state.current.initialSyncDone &&
      isLiveWindow(window, deps.windows.overlapMs, definition.intervalMs)
        ? 'live'
        : 'bulk';
    // Backpressure holds bulk work only: a live window is small and must not wait behind a
    // backfill's backlog (its changes are what the latency target is about).
    if (priority === 'bulk' && (await backlogAboveBound(deps, result))) break;
    const overlap = memory
      ? new WindowOverlap(memory, recalled, window, deps.windows.overlapMs, spec.entityType)
      : undefined;
    const backfillSync = state.current.initialSyncDone ? undefined : state.current.backfill;
    const backlog = backlogBoundary(deps, result);
    /** Whether the page after the one in hand was asked for as it arrived (read ahead). */
    let readingAhead = false;
    pace.asking();
    const read = await readWindow(definition, spec, deps, window, {
      emitCreated: emitsCreated(definition, state.current),
      priority,
      backfill: liveJudging(state.current, window),
      // A backfill's first sync gives a page up once a later backfill or reset took over.
      beforePublish:
        backfillSync === undefined
          ? undefined
          : partStillCurrent(deps.store, state, backfillSync.jobId),
      needsRead,
      storedSince: ownSnapshotsSince(state),
      overlap,
      savePage: async (next, counts) => {
        await state.save({
          window: next,
          ...advanceCounters(state.current, counts),
          ...setAsideNoted(state.current, counts),
          ...announcedToPass(state.current, counts),
        });
      },
      stopAfterPage: async () => {
        if (pastDeadline(deps) || backlog.reached()) return true;
        // One read ahead was asked for when it fitted, and is taken; none is asked for late.
        if (!readingAhead && !pace.nextFits()) return true;
        if (priority === 'bulk') await backlog.check();
        return false;
      },
      ahead: (page) => {
        pace.arrived(page.sentAt);
        readingAhead = !backlog.reached() && pace.nextFits();
        return readingAhead;
      },
    });
    result.records += read.records;
    if (!read.finished) break;
    overlap?.commit(definition.streamId, window.endUtc);
    deps.observer?.onWindow?.(definition.streamId, window, read.records);
    result.windows++;
    const caughtUp = reachesPresent(window);
    // A first sync that reaches the present has just seen every record: it counts as a sweep.
    const firstSyncDone = caughtUp && state.current.lastSweepAt === null;
    const committed: Partial<StreamState> = {
      watermark: window.endUtc,
      window: null,
      ...(caughtUp
        ? syncCompleted(state.current, read.lastPage, deps.clock.now())
        : advanceCounters(state.current, read.lastPage)),
      ...(firstSyncDone
        ? { lastSweepAt: firstSweepAt(spec, state.current, deps.clock.now()) }
        : {}),
      ...setAsideNoted(state.current, read.lastPage),
      ...announcedToPass(state.current, read.lastPage),
    };
    if (caughtUp) {
      // The poll's success save follows (after a sweep, if one is due) and writes it.
      state.stage(committed);
      result.caughtUp = true;
      break;
    }
    await state.save(committed);
  }
  return result;
}
