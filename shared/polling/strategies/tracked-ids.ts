import { listingJudging, listingPassDone } from '../backfill-state.ts';
import { commitObservations } from '../commit-changes.ts';
import { type Observation, observe } from '../page-changes.ts';
import {
  callOptions,
  emitsCreated,
  type PollDeps,
  type StateHandle,
  type StreamDefinition,
  syncCompleted,
} from '../poll-context.ts';
import { PAGE_COUNT_MAX, type TrackedIdsPollSpec } from '../poll-spec.ts';
import { callForRecords, chunk } from './paged-records.ts';

/**
 * Tracked ids (exports): the configured ids are fetched by id each cycle; an id whose stored
 * record reached a final state (Expired) is no longer asked for; an id the API stops
 * returning is deleted.
 */
export async function runTrackedIds(
  definition: StreamDefinition,
  spec: TrackedIdsPollSpec,
  deps: PollDeps,
  state: StateHandle,
): Promise<number> {
  const configured = [...new Set(definition.trackedIds ?? [])];
  const stored = await deps.store.getSnapshots(definition.streamId, configured);
  const active = configured.filter((id) => {
    const snapshot = stored.get(id);
    return !snapshot || (!snapshot.deleted && !spec.isFinal(snapshot.record));
  });
  const observations: Observation[] = [];
  let read = 0;
  for (const ids of chunk(active, PAGE_COUNT_MAX)) {
    const records = await callForRecords(
      deps.client,
      spec.operation,
      spec.request(ids),
      spec.itemsKey,
      callOptions(deps, definition, 'live'),
    );
    read += records.length;
    const found = observe(spec.entityType, records);
    const returned = new Set(found.map((o) => o.entityId));
    observations.push(...found);
    for (const id of ids)
      if (!returned.has(id) && stored.has(id)) observations.push({ entityId: id, record: null });
  }
  const emitCreated = emitsCreated(definition, state.current);
  const changes = await commitObservations(definition, deps, observations, emitCreated, {
    backfill: listingJudging(state.current),
  });
  // The poll's success save follows at once and writes it (one write per poll).
  const now = deps.clock.now();
  state.stage({
    watermark: new Date(now).toISOString(),
    ...syncCompleted(state.current, { records: read, events: changes.published }, now),
    ...listingPassDone(state.current, { records: read, events: changes.published }, now),
  });
  return changes.events.length;
}
