import type { SetAsideRecord } from '../../connector/response.ts';
import { listingCommitted, listingJudging, listingPartCheck } from '../backfill-state.ts';
import { commitObservations } from '../commit-changes.ts';
import { pollPace } from '../deadline-pace.ts';
import { type Observation, observe } from '../page-changes.ts';
import {
  callOptions,
  emitsCreated,
  type PollDeps,
  type StateHandle,
  type StreamDefinition,
} from '../poll-context.ts';
import { PAGE_COUNT_MAX, type TrackedIdsPollSpec } from '../poll-spec.ts';
import { callForListing, chunk } from './paged-records.ts';
import { pastDeadline } from './windowed.ts';

/**
 * Tracked ids (exports): the configured ids are fetched by id each cycle; an id whose stored
 * record reached a final state (Expired) is no longer asked for; an id the API stops
 * returning is deleted, and, still asked for, created again should the API return it again. A record returned that breaks its schema is set aside (noted on the
 * stream, see StreamState.lastSetAside) and counted as returned by its Id: its snapshot stays as
 * it was, neither changed nor deleted. While one whose Id is unreadable or was not asked for is
 * returned, no id of its request is taken for deleted: each could be the record it stands for.
 * Its requests (1,000 ids each) are judged together: it starts none when they could not all be
 * in hand before the invocation's deadline (see deadlinePace), and returns false, having judged
 * nothing; the next poll asks for them.
 */
export async function runTrackedIds(
  definition: StreamDefinition,
  spec: TrackedIdsPollSpec,
  deps: PollDeps,
  state: StateHandle,
): Promise<boolean> {
  const configured = [...new Set(definition.trackedIds ?? [])];
  const stored = await deps.store.getSnapshots(definition.streamId, configured);
  // A tombstoned id is asked for still (in the same requests, 1,000 ids each): returned again,
  // it is judged against its tombstone and published as created.
  const active = configured.filter((id) => {
    const snapshot = stored.get(id);
    return !snapshot || !spec.isFinal(snapshot.record);
  });
  const observations: Observation[] = [];
  const setAside: SetAsideRecord[] = [];
  let read = 0;
  const chunks = chunk(active, PAGE_COUNT_MAX);
  const pace = pollPace(deps);
  // A listing cut between its requests would be asked for again whole: all fit, or none starts.
  if (pastDeadline(deps) || !pace.nextFits(chunks.length)) return false;
  for (const ids of chunks) {
    pace.asking();
    const listing = await callForListing(
      deps.client,
      spec.operation,
      spec.request(ids),
      spec.itemsKey,
      { ...callOptions(deps, definition, 'live'), setAside: true },
    );
    pace.arrived(listing.sentAt);
    const { records } = listing;
    read += records.length + listing.setAside.length;
    const found = observe(spec.entityType, records);
    const returned = new Set(found.map((o) => o.entityId));
    const asked = new Set(ids);
    // A record set aside whose Id is unreadable (or not one asked for) could be any asked id
    // not otherwise returned: none of this request's is taken for deleted while it is returned.
    let unkeyed = false;
    for (const record of listing.setAside) {
      if (record.recordId === undefined || !asked.has(record.recordId)) unkeyed = true;
      else returned.add(record.recordId);
      setAside.push(record);
    }
    observations.push(...found);
    if (unkeyed) continue;
    for (const id of ids)
      if (!returned.has(id) && stored.has(id) && stored.get(id)?.deleted !== true)
        observations.push({ entityId: id, record: null });
  }
  const emitCreated = emitsCreated(definition, state.current);
  const changes = await commitObservations(definition, deps, observations, emitCreated, {
    backfill: listingJudging(state.current),
    beforePublish: listingPartCheck(deps.store, state),
  });
  // The poll's success save follows at once and writes it (one write per poll).
  const now = deps.clock.now();
  const counts = { records: read, events: changes.published };
  state.stage(listingCommitted(state.current, counts, setAside, now));
  return true;
}
