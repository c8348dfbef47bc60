import { entityIdOf } from '../../changes/entity-types.ts';
import type { StreamState } from '../../state/state-store.ts';
import { commitObservations } from '../commit-changes.ts';
import type { Observation } from '../page-changes.ts';
import {
  advanceCounters,
  callOptions,
  type PollDeps,
  type StateHandle,
  type StreamDefinition,
} from '../poll-context.ts';
import { PAGE_COUNT_MAX, type WindowedPollSpec } from '../poll-spec.ts';
import { allRecords, chunk } from './paged-records.ts';

/** True when a stream in `state` has its sweep due at `now`. Pure. */
export function sweepDue(spec: WindowedPollSpec, state: StreamState, now: number): boolean {
  if (!spec.sweep || !state.initialSyncDone) return false;
  const last = state.lastSweepAt;
  return last === null || now - last >= spec.sweep.intervalMs;
}

/**
 * Mark and sweep for operations whose deletes leave no trace: every live stored id is asked
 * for by id (1,000 per request); the ids the API returns are marked, and the stored ones it
 * no longer returns are swept as deleted.
 */
export async function runSweep(
  definition: StreamDefinition,
  spec: WindowedPollSpec,
  deps: PollDeps,
  state: StateHandle,
): Promise<number> {
  const sweep = spec.sweep!;
  // The sweep writes tombstones within the watermark the last window committed: what that window
  // remembered no longer describes every stored snapshot.
  deps.overlapMemory?.forget(definition.streamId);
  const liveIds: string[] = [];
  for await (const snapshots of deps.store.scanSnapshots(definition.streamId)) {
    for (const snapshot of snapshots) if (!snapshot.deleted) liveIds.push(snapshot.entityId);
  }
  let deleted = 0;
  let read = 0;
  let published = 0;
  for (const ids of chunk(liveIds, PAGE_COUNT_MAX)) {
    const found = await allRecords(
      deps.client,
      spec.operation,
      sweep.request(ids, PAGE_COUNT_MAX),
      callOptions(deps, definition, 'bulk'),
    );
    read += found.length;
    const marked = new Set(found.map((record) => entityIdOf(spec.entityType, record)));
    const missing: Observation[] = ids
      .filter((id) => !marked.has(id))
      .map((entityId) => ({ entityId, record: null }));
    const changes = await commitObservations(definition, deps, missing, true);
    deleted += changes.events.length;
    published += changes.published;
  }
  // The poll's success save follows at once and writes it (one write per poll).
  state.stage({
    lastSweepAt: deps.clock.now(),
    ...advanceCounters(state.current, { records: read, events: published }),
  });
  return deleted;
}
