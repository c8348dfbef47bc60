import { addUtcMonths, TIME_FILTER_MAX_MONTHS } from '../../connector/records/common.ts';
import { liveJudging } from '../backfill-state.ts';
import { commitObservations } from '../commit-changes.ts';
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
import { pageRecords } from './paged-records.ts';
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

/**
 * The periodic deletion read of a stream whose operation filters on deletion time (customers:
 * `DeletedUtc`): connector-api.md does not say a soft delete moves `UpdatedUtc`, and one that
 * does not is in no window. Every `deletions.intervalMs` the records deleted since the last run
 * are read (one request when none or few were), and judged as a window's would be: a stored live
 * record returned deleted is published as deleted, one already a tombstone emits nothing. A
 * record set aside is deleted by its `Id` all the same (the request returns deleted ones only).
 * Runs in the place of a sweep, and keeps its time in `lastSweepAt`, which the first sync sets.
 * Like a window's, it starts no page past the invocation's deadline (or once the process
 * stops): it then returns false, with `lastSweepAt` moved to the end of the last window it read
 * whole, so the next poll goes on from there (what it judged of a window cut short comes back
 * as tombstones, and emits nothing again).
 */
export async function runDeletions(
  definition: StreamDefinition,
  spec: WindowedPollSpec,
  deps: PollDeps,
  state: StateHandle,
): Promise<boolean> {
  const deletions = spec.deletions!;
  const now = deps.clock.now();
  const last = state.current.lastSweepAt ?? now;
  for (const window of deletionWindows(last, now, deps.windows)) {
    if (pastDeadline(deps)) return false;
    for await (const page of pageRecords(
      deps.client,
      spec.operation,
      deletions.request(window, deps.pageCount),
      { ...callOptions(deps, definition, 'bulk'), setAside: true },
    )) {
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
      const latest = setAside.at(-1);
      const counts = {
        records: page.records.length + setAside.length,
        events: changes.published,
        ...(latest ? { setAside: { records: setAside.length, error: latest.error, at: now } } : {}),
      };
      state.stage({
        ...advanceCounters(state.current, counts),
        ...setAsideNoted(state.current, counts),
      });
      if (pastDeadline(deps)) return false;
    }
    // The next read starts here (less the settle lag and the overlap); the last window ends at
    // `now` less the settle lag. The poll's save follows at once and writes it (one write).
    state.stage({ lastSweepAt: Date.parse(window.endUtc) + deps.windows.settleLagMs });
  }
  state.stage({ lastSweepAt: now });
  return true;
}
