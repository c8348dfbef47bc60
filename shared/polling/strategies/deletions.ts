import { ConnectorError } from '../../connector/errors.ts';
import { addUtcMonths, TIME_FILTER_MAX_MONTHS } from '../../connector/records/common.ts';
import { announcedToPass, liveJudging } from '../backfill-state.ts';
import { commitObservations } from '../commit-changes.ts';
import { type DeadlinePace, pollPace } from '../deadline-pace.ts';
import { type Observation, observe } from '../page-changes.ts';
import {
  advanceCounters,
  callOptions,
  type PollDeps,
  type StateHandle,
  type StreamDefinition,
  setAsideNoted,
} from '../poll-context.ts';
import type { WindowedPollSpec } from '../poll-spec.ts';
import type { PollWindow } from '../windows.ts';
import { pageRecords, type RecordPage } from './paged-records.ts';
import { pastDeadline } from './windowed.ts';

/**
 * The deletion windows of a run at `nowMs`: from the last run (less the settle lag and the
 * overlap, as its end was) to now less the settle lag, in intervals of at most three months
 * (a longer time filter is a 400). Empty when there is nothing to ask. Pure.
 */
export function deletionWindows(
  lastRunMs: number,
  nowMs: number,
  windows: PollDeps['windows'],
): PollWindow[] {
  const end = nowMs - windows.settleLagMs;
  const result: PollWindow[] = [];
  let start = lastRunMs - windows.settleLagMs - windows.overlapMs;
  while (start < end) {
    const next = Math.min(end, addUtcMonths(start, TIME_FILTER_MAX_MONTHS));
    result.push({ startUtc: new Date(start).toISOString(), endUtc: new Date(next).toISOString() });
    start = next;
  }
  return result;
}

/** A deletion window with the Cursor of the last page of it judged (null: from its newest page). */
type DeletionWindow = PollWindow & { cursor?: string | null };

/**
 * The periodic deletion read of a stream whose operation filters on deletion time (customers:
 * `DeletedUtc`): connector-api.md does not say a soft delete moves `UpdatedUtc`, and one that
 * does not is in no window. Every `deletions.intervalMs` the records deleted since the last run
 * are read (one request when none or few were), and judged as a window's would be: a stored live
 * record returned deleted is published as deleted, one already a tombstone emits nothing. A
 * record set aside is deleted by its `Id` all the same (the request returns deleted ones only).
 * Runs in the place of a sweep, and keeps its time in `lastSweepAt`, which the first sync sets.
 * Like a sweep, a read that writes a tombstone has this process forget what the stream's last
 * window stored (see OverlapMemory): the next window judges its overlap again.
 * Like a window's, it starts no page that could not be in hand before the invocation's deadline
 * (see deadlinePace), nor once the process stops: it then returns false, with `lastSweepAt`
 * moved to the end of the last window it read whole and the window it was in kept with the
 * Cursor of its last page judged (`deletionWindow`, saved after each page but the last), so the
 * next poll goes on from that page, then reads the windows after it.
 */
export async function runDeletions(
  definition: StreamDefinition,
  spec: WindowedPollSpec,
  deps: PollDeps,
  state: StateHandle,
): Promise<boolean> {
  const now = deps.clock.now();
  const kept = state.current.deletionWindow ?? null;
  const windows: DeletionWindow[] = kept
    ? [
        kept,
        ...deletionWindows(Date.parse(kept.endUtc) + deps.windows.settleLagMs, now, deps.windows),
      ]
    : deletionWindows(state.current.lastSweepAt ?? now, now, deps.windows);
  const pace = pollPace(deps);
  for (const window of windows) {
    if (pastDeadline(deps) || !pace.nextFits()) return false;
    if (!(await readDeletionWindow(definition, spec, deps, state, pace, window, now))) return false;
    // The next read starts here (less the settle lag and the overlap); the last window ends at
    // `now` less the settle lag. The poll's save follows at once and writes it (one write).
    state.stage({
      lastSweepAt: Date.parse(window.endUtc) + deps.windows.settleLagMs,
      deletionWindow: null,
    });
  }
  state.stage({ lastSweepAt: now, deletionWindow: null });
  return true;
}

/**
 * Reads one deletion window from its Cursor, judging each page; returns whether it read the
 * window's last page (false: cut at the deadline, the window kept with its Cursor). A Cursor
 * the connector refuses (400: the record it names was deleted for good since) would fail the
 * read at every poll: the window is read again from its newest page instead, once, which judges
 * the records already read as tombstones (no event).
 */
async function readDeletionWindow(
  definition: StreamDefinition,
  spec: WindowedPollSpec,
  deps: PollDeps,
  state: StateHandle,
  pace: DeadlinePace,
  window: DeletionWindow,
  now: number,
  retried = false,
): Promise<boolean> {
  const body = spec.deletions!.request(window, deps.pageCount);
  let cursor = window.cursor ?? null;
  if (cursor !== null) body.Limitation = { ...(body.Limitation as object), Cursor: cursor };
  const pages = pageRecords(deps.client, spec.operation, body, {
    ...callOptions(deps, definition, 'bulk'),
    setAside: true,
  });
  pace.asking();
  try {
    for await (const page of pages) {
      await judgeDeletionPage(definition, spec, deps, state, window, page, now);
      if (page.last || page.cursor === null) {
        pace.arrived(page.sentAt);
        return true;
      }
      cursor = page.cursor;
      const { startUtc, endUtc } = window;
      await state.save({ deletionWindow: { startUtc, endUtc, cursor } });
      pace.arrived(page.sentAt);
      if (pastDeadline(deps) || !pace.nextFits()) return false;
    }
    return true;
  } catch (error) {
    const refused = cursor !== null && error instanceof ConnectorError && error.status === 400;
    if (!refused || retried) throw error;
    const fromNewest = { ...window, cursor: null };
    return readDeletionWindow(definition, spec, deps, state, pace, fromNewest, now, true);
  }
}

/** Judges one page of a deletion read and stages the stream's counters for it. */
async function judgeDeletionPage(
  definition: StreamDefinition,
  spec: WindowedPollSpec,
  deps: PollDeps,
  state: StateHandle,
  window: PollWindow,
  page: RecordPage,
  now: number,
): Promise<void> {
  const observations: Observation[] = observe(spec.entityType, page.records);
  const setAside = page.setAside ?? [];
  for (const record of setAside) {
    if (record.recordId !== undefined && record.sent !== undefined)
      observations.push({ entityId: record.recordId, record: record.sent, deleted: true });
  }
  // A deleted record leaves an emit backfill's reach: its created goes first, as a window's.
  const changes = await commitObservations(definition, deps, observations, true, {
    backfill: liveJudging(state.current, window),
  });
  // Tombstones written under the watermark the last window committed: what that window
  // remembered no longer describes every stored snapshot (a record it stored, deleted here and
  // restored as it was, would be passed over by the next window's overlap), as after a sweep.
  if (changes.writes.length > 0) deps.overlapMemory?.forget(definition.streamId);
  const latest = setAside.at(-1);
  const counts = {
    records: page.records.length + setAside.length,
    events: changes.published,
    ...(changes.announced ? { announced: changes.announced } : {}),
    ...(latest ? { setAside: { records: setAside.length, error: latest.error, at: now } } : {}),
  };
  state.stage({
    ...advanceCounters(state.current, counts),
    ...setAsideNoted(state.current, counts),
    // The backfill's created events it sent first are the pass's too, as a window's are.
    ...announcedToPass(state.current, counts),
  });
}
