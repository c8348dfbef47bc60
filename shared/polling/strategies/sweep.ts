import { contentHash } from '../../changes/canonical.ts';
import { type EntityRecord, entityIdOf } from '../../changes/entity-types.ts';
import { isSoftDeleted } from '../../changes/event.ts';
import type { CallOptions } from '../../connector/client.ts';
import type { PaginatedOperationName } from '../../connector/operations.ts';
import type { SetAsideRecord } from '../../connector/response.ts';
import type { StreamState } from '../../state/state-store.ts';
import { announcedToPass, liveJudging } from '../backfill-state.ts';
import { commitObservations } from '../commit-changes.ts';
import { type DeadlinePace, pollPace } from '../deadline-pace.ts';
import type { Observation } from '../page-changes.ts';
import {
  advanceCounters,
  callOptions,
  type PollDeps,
  type StateHandle,
  type StreamDefinition,
  setAsideNoted,
} from '../poll-context.ts';
import { PAGE_COUNT_MAX, type RequestBody, type WindowedPollSpec } from '../poll-spec.ts';
import { nextSweepAt, sweepIntervalOf } from '../sweep-slots.ts';
import { pageRecords } from './paged-records.ts';
import { pastDeadline } from './windowed.ts';

/**
 * True when a stream in `state` has its sweep (or its deletion read) due at `now`: at its next
 * sweep slot after the last one ({@link nextSweepAt}), or, a stream without slots, a period
 * after it. Pure.
 */
export function sweepDue(
  definition: Pick<StreamDefinition, 'spec' | 'sweepSlots'>,
  state: StreamState,
  now: number,
): boolean {
  const intervalMs = sweepIntervalOf(definition.spec);
  if (intervalMs === undefined || !state.initialSyncDone) return false;
  const last = state.lastSweepAt;
  if (last === null) return true;
  const slots = definition.sweepSlots;
  return slots === undefined
    ? now - last >= intervalMs
    : now >= nextSweepAt(last, intervalMs, slots);
}

/**
 * Mark and sweep for operations whose deletes leave no trace: every live stored id (and kept
 * tombstone, see below) is asked for by id (1,000 per request, in the store's id order); the
 * ids the API returns are marked,
 * and the stored ones it no longer returns are swept as deleted. A record returned whose content
 * hash differs from its stored snapshot's is judged as a window's would be (updated, or deleted
 * by its own flag): connector-api.md does not say that every change moves `UpdatedUtc` (a
 * payment request's expiry, which time alone brings, may not), and such a change is in no
 * window. The hashes come from the scan of stored ids, so an unchanged record costs no read; the
 * scan is read as the requests go, a request's worth ahead. The ids of the tombstones still
 * kept (deleted in the last 35 days) are asked for too: one returned present again was
 * restored, which need not move `UpdatedUtc` either, and is published as created; one not
 * returned, or returned deleted, stays a tombstone, with no event. After each request but the
 * last, the stream state keeps the last id checked ({@link StreamState.sweepPosition}), so a
 * sweep longer than one run (a Lambda's deadline) goes on from there in the next, instead of
 * starting again from the first id every run and never ending. Like a window's read, it starts
 * no request that could not be in hand before the invocation's deadline (see deadlinePace), nor
 * once the process stops: it then returns false, its position kept, and the poll leaves the
 * stream due again at once. Returns true when the
 * sweep ended (its end staged for the poll's success save). A record returned that breaks its
 * schema still exists: marked by its Id, it is not swept (its content is the windows' business,
 * which set it aside). While one whose Id is unreadable (or not one asked for) is returned, no
 * id of its request is swept, as each could be that record; it is noted as set aside.
 */
export async function runSweep(
  definition: StreamDefinition,
  spec: WindowedPollSpec,
  deps: PollDeps,
  state: StateHandle,
): Promise<boolean> {
  // The sweep writes tombstones within the watermark the last window committed: what that window
  // remembered no longer describes every stored snapshot.
  deps.overlapMemory?.forget(definition.streamId);
  const after = state.current.sweepPosition ?? undefined;
  // The stored ids and hashes are read as the requests go, a request's worth ahead at most (a
  // request is the last only once no id to ask follows it), not all before the first: about
  // 16 MB per 100,000 records. The scan pages through what exists as each page is read, and the
  // sweep writes only ids already behind it.
  let filling = new Map<string, string | null>();
  let full: Map<string, string | null> | undefined;
  const nowSeconds = deps.clock.now() / 1000;
  const pace = pollPace(deps);
  // The position the last request saved stands: the next poll goes on after it.
  const stops = () => pastDeadline(deps) || !pace.nextFits();
  for await (const snapshots of deps.store.scanSnapshots(definition.streamId, { after })) {
    for (const snapshot of snapshots) {
      const tombstone = snapshot.deleted === true;
      // An expired tombstone lingers until DynamoDB's TTL removes it: it is no longer kept.
      if (tombstone && (snapshot.expiresAt ?? 0) <= nowSeconds) continue;
      if (full) {
        if (stops()) return false;
        await sweepIds(definition, spec, deps, state, pace, full, false);
        full = undefined;
      }
      filling.set(snapshot.entityId, tombstone ? null : snapshot.hash);
      if (filling.size === PAGE_COUNT_MAX) {
        full = filling;
        filling = new Map();
      }
    }
  }
  const last = full ?? filling;
  if (last.size === 0) {
    state.stage({ lastSweepAt: deps.clock.now(), sweepPosition: null });
    return true;
  }
  if (stops()) return false;
  await sweepIds(definition, spec, deps, state, pace, last, true);
  return true;
}

/**
 * One request of a sweep: asks for the ids of `storedHashes` (at most 1,000, in the store's
 * order; a tombstone's hash is null), judges what comes back against the stored hashes and
 * sweeps the live ids not returned. A tombstoned id returned present is judged (as created).
 * Saves the last id checked as the sweep's position, or, for the `last` request, stages the
 * sweep's end. Returns the events it judged. Told to `pace` from its request to its save.
 */
async function sweepIds(
  definition: StreamDefinition,
  spec: WindowedPollSpec,
  deps: PollDeps,
  state: StateHandle,
  pace: DeadlinePace,
  storedHashes: ReadonlyMap<string, string | null>,
  last: boolean,
): Promise<number> {
  const ids = [...storedHashes.keys()];
  const volatileFields = spec.volatileFields;
  pace.asking();
  const { found, present, unkeyed, sentAt } = await sweepChunk(
    deps,
    spec.operation,
    spec.sweep!.request(ids, PAGE_COUNT_MAX),
    callOptions(deps, definition, 'bulk'),
    new Set(ids),
  );
  const marked = new Set<string>();
  const changed: Observation[] = [];
  const gone: Observation[] = [];
  for (const record of found) {
    const entityId = entityIdOf(spec.entityType, record);
    marked.add(entityId);
    const stored = storedHashes.get(entityId);
    if (stored === null) {
      // Restored: judged against its tombstone, whatever its content, which may be the same.
      if (!isSoftDeleted(record)) changed.push({ entityId, record });
    } else if (stored !== undefined && contentHash(record, { volatileFields }) !== stored)
      (isSoftDeleted(record) ? gone : changed).push({ entityId, record });
  }
  for (const id of present) marked.add(id);
  // A record returned whose Id is unreadable (or not one asked for) could be any id of the
  // request not otherwise returned: none of them is swept while it is returned.
  if (unkeyed.length === 0) {
    for (const entityId of ids)
      if (!marked.has(entityId) && storedHashes.get(entityId) !== null)
        gone.push({ entityId, record: null });
  }
  // A record changed in place stays in an emit backfill's reach, which sends its created when
  // it reads it; one deleted leaves it, so its created goes first, here, as a live window's.
  const updates = await commitObservations(definition, deps, changed, true);
  const deletes = await commitObservations(definition, deps, gone, true, {
    backfill: liveJudging(state.current, { startUtc: new Date(deps.clock.now()).toISOString() }),
  });
  const counts = {
    records: found.length + present.length + unkeyed.length,
    events: updates.published + deletes.published,
    ...(deletes.announced ? { announced: deletes.announced } : {}),
  };
  const lastSetAside = unkeyed.at(-1);
  const counters = {
    ...advanceCounters(state.current, counts),
    // The backfill's created events it sent first are the pass's too, as a window's are.
    ...announcedToPass(state.current, counts),
    ...(lastSetAside
      ? setAsideNoted(state.current, {
          ...counts,
          setAside: { records: unkeyed.length, error: lastSetAside.error, at: deps.clock.now() },
        })
      : {}),
  };
  if (!last) {
    await state.save({ sweepPosition: ids.at(-1)!, ...counters });
  } else {
    // The poll's success save follows at once and writes it (one write per poll).
    state.stage({ lastSweepAt: deps.clock.now(), sweepPosition: null, ...counters });
  }
  pace.arrived(sentAt);
  return updates.events.length + deletes.events.length;
}

/**
 * The records the connector returns for one sweep request, the asked ids of those it returned
 * breaking their schema (set aside: they exist all the same), and those set aside whose Id is
 * unreadable or not one of `asked` (which asked record each stands for cannot be told), and
 * when its first page's request was sent (see CallResult.sentAt).
 */
async function sweepChunk(
  deps: PollDeps,
  operation: PaginatedOperationName,
  body: RequestBody,
  options: CallOptions,
  asked: ReadonlySet<string>,
): Promise<{
  found: EntityRecord[];
  present: string[];
  unkeyed: SetAsideRecord[];
  sentAt: number | undefined;
}> {
  const found: EntityRecord[] = [];
  const present: string[] = [];
  const unkeyed: SetAsideRecord[] = [];
  let sentAt: number | undefined;
  for await (const page of pageRecords(deps.client, operation, body, {
    ...options,
    setAside: true,
  })) {
    sentAt ??= page.sentAt;
    found.push(...page.records);
    for (const record of page.setAside ?? []) {
      if (record.recordId === undefined || !asked.has(record.recordId)) unkeyed.push(record);
      else present.push(record.recordId);
    }
  }
  return { found, present, unkeyed, sentAt };
}
