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
 * for by id (1,000 per request, in the store's id order); the ids the API returns are marked,
 * and the stored ones it no longer returns are swept as deleted. After each request but the
 * last, the stream state keeps the last id checked ({@link StreamState.sweepPosition}), so a
 * sweep longer than one run (a Lambda's deadline) goes on from there in the next, instead of
 * starting again from the first id every run and never ending.
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
  const after = state.current.sweepPosition ?? undefined;
  const liveIds: string[] = [];
  for await (const snapshots of deps.store.scanSnapshots(definition.streamId, { after })) {
    for (const snapshot of snapshots) if (!snapshot.deleted) liveIds.push(snapshot.entityId);
  }
  const chunks = chunk(liveIds, PAGE_COUNT_MAX);
  let deleted = 0;
  for (const [index, ids] of chunks.entries()) {
    const found = await allRecords(
      deps.client,
      spec.operation,
      sweep.request(ids, PAGE_COUNT_MAX),
      callOptions(deps, definition, 'bulk'),
    );
    const marked = new Set(found.map((record) => entityIdOf(spec.entityType, record)));
    const missing: Observation[] = ids
      .filter((id) => !marked.has(id))
      .map((entityId) => ({ entityId, record: null }));
    const changes = await commitObservations(definition, deps, missing, true);
    deleted += changes.events.length;
    const counters = advanceCounters(state.current, {
      records: found.length,
      events: changes.published,
    });
    if (index < chunks.length - 1) {
      await state.save({ sweepPosition: ids.at(-1)!, ...counters });
    } else {
      // The poll's success save follows at once and writes it (one write per poll).
      state.stage({ lastSweepAt: deps.clock.now(), sweepPosition: null, ...counters });
    }
  }
  if (chunks.length === 0) state.stage({ lastSweepAt: deps.clock.now(), sweepPosition: null });
  return deleted;
}
