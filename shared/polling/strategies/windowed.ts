import { entityIdOf } from '../../changes/entity-types.ts';
import { readAhead } from '../../concurrency.ts';
import type { BudgetPriority } from '../../connector/budget/token-budget.ts';
import type { StreamState, StreamWindow } from '../../state/state-store.ts';
import { publishObservations, storeChanges } from '../commit-changes.ts';
import { WindowOverlap } from '../overlap-memory.ts';
import { type Observation, observe } from '../page-changes.ts';
import {
  advanceCounters,
  callOptions,
  emitsCreated,
  type PageCounts,
  type PollDeps,
  type StateHandle,
  type StreamDefinition,
  syncCompleted,
} from '../poll-context.ts';
import type { WindowedPollSpec } from '../poll-spec.ts';
import type { RecordGrant } from '../record-budget.ts';
import { nextWindow, reachesPresent } from '../windows.ts';
import { allRecords, budgetedPages, pageRecords } from './paged-records.ts';

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

/** Whether delivery lags past its bound; the run then stops with its cursor saved. */
async function backlogAboveBound(deps: PollDeps, result: { paused?: boolean }): Promise<boolean> {
  if (!deps.backlog || !(await deps.backlog.aboveBound())) return false;
  result.paused = true;
  return true;
}

function pastDeadline(deps: PollDeps): boolean {
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
  // A caught-up stream's window reaching the present is a live poll; anything else (a first
  // sync, a backfill, a catch-up window cut at three months) is bulk work behind it.
  let priority: BudgetPriority = 'bulk';
  const classify = spec.deletedAmong
    ? async (ids: readonly string[]) => {
        const deleted = await allRecords(
          deps.client,
          spec.operation,
          spec.deletedAmong!(ids, deps.pageCount),
          callOptions(deps, definition, priority),
        );
        return new Set(deleted.map((record) => entityIdOf(spec.entityType, record)));
      }
    : undefined;
  const needsRead = (observation: Observation) => mayHaveSnapshot(observation, state, deps);
  // A stream whose deletes are learnt by a second request is judged on more than its records.
  const memory = spec.deletedAmong ? undefined : deps.overlapMemory;
  while (!pastDeadline(deps)) {
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
    const emitCreated = emitsCreated(definition, state.current);
    priority = state.current.initialSyncDone && reachesPresent(window) ? 'live' : 'bulk';
    // Backpressure holds bulk work only: a live window is small and must not wait behind a
    // backfill's backlog (its changes are what the latency target is about).
    if (priority === 'bulk' && (await backlogAboveBound(deps, result))) break;
    const body = spec.windowRequest(window, window.count);
    if (window.cursor !== null)
      body.Limitation = { ...(body.Limitation as object), Cursor: window.cursor };
    let windowRecords = 0;
    let finished = false;
    // The last page saves no cursor: its counts go with the watermark instead.
    let lastPage: PageCounts = { records: 0, events: 0 };
    // Page n is stored (snapshots, then its cursor) while page n+1 is fetched, diffed and
    // published. Its events go out before page n's snapshots land, which the flow allows: the
    // cursor saved is always that of a page fully published and stored.
    let storing: Promise<void> = Promise.resolve();
    let current: StreamWindow = window;
    const grants = new Set<RecordGrant>();
    const overlap = memory
      ? new WindowOverlap(memory, recalled, window, deps.windows.overlapMs, spec.entityType)
      : undefined;
    const pages = budgetedPages(
      pageRecords(deps.client, spec.operation, body, {
        ...callOptions(deps, definition, priority),
        ...(overlap ? { screens: () => overlap.pageScreen() } : {}),
      }),
      {
        budget: deps.records,
        streamId: definition.streamId,
        entityType: spec.entityType,
        requested: window.count,
        ...(deps.signal ? { signal: deps.signal } : {}),
        grants,
      },
    );
    try {
      for await (const page of readAhead(pages)) {
        const changes = await publishObservations(
          definition,
          deps,
          observe(spec.entityType, page.records),
          emitCreated,
          { ...(classify ? { classify } : {}), needsRead, lane: priority },
        );
        await storing;
        const read = page.records.length + page.passedOver;
        windowRecords += read;
        const next: StreamWindow | undefined = page.last
          ? undefined
          : { ...current, cursor: page.cursor, count: page.count, pages: current.pages + 1 };
        const counts: PageCounts = { records: read, events: changes.published };
        storing = storeChanges(definition, deps, changes)
          .then(async () => {
            overlap?.keepStored(page.screen);
            if (next) await state.save({ window: next, ...advanceCounters(state.current, counts) });
          })
          .finally(() => page.grant?.release());
        // Awaited before the next page or at the end; until then, a failure must not count as
        // an unhandled rejection (which would end the process).
        storing.catch(() => undefined);
        if (!next) {
          finished = true;
          lastPage = counts;
          break;
        }
        current = next;
        if (pastDeadline(deps)) break;
        // The next page is already being read (one page ahead); no further one until it drains.
        if (priority === 'bulk' && (await backlogAboveBound(deps, result))) break;
      }
    } finally {
      try {
        await storing;
      } finally {
        // Claims of pages that were not stored: a failure, or the page read ahead and dropped.
        for (const grant of grants) grant.release();
      }
    }
    result.records += windowRecords;
    if (!finished) break;
    overlap?.commit(definition.streamId, window.endUtc);
    deps.observer?.onWindow?.(definition.streamId, window, windowRecords);
    result.windows++;
    const caughtUp = reachesPresent(window);
    // A first sync that reaches the present has just seen every record: it counts as a sweep.
    const firstSyncDone = caughtUp && state.current.lastSweepAt === null;
    const committed: Partial<StreamState> = {
      watermark: window.endUtc,
      window: null,
      ...(caughtUp
        ? syncCompleted(state.current, lastPage, deps.clock.now())
        : advanceCounters(state.current, lastPage)),
      ...(firstSyncDone ? { lastSweepAt: deps.clock.now() } : {}),
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
