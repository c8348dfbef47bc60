import { type EntityRecord, type EntityType, entityIdOf } from '../../changes/entity-types.ts';
import { isOperationName, OPERATIONS } from '../../connector/operations.ts';
import { UuidSchema } from '../../connector/records/common.ts';
import type { SetAsideRecord } from '../../connector/response.ts';
import { BridgeError, ValidationError } from '../../errors.ts';
import { listingCommitted, listingJudging, listingPartCheck } from '../backfill-state.ts';
import { commitObservations } from '../commit-changes.ts';
import { type DeadlinePace, pollPace } from '../deadline-pace.ts';
import { type Observation, observe } from '../page-changes.ts';
import {
  callOptions,
  emitsCreated,
  type PollDeps,
  type StateHandle,
  type StreamDefinition,
} from '../poll-context.ts';
import { PAGE_COUNT_MAX, type SnapshotPollSpec } from '../poll-spec.ts';
import { callForListing, pageRecords } from './paged-records.ts';
import { pastDeadline } from './windowed.ts';

/** A listing: its records, and those set aside for breaking their schema. */
interface Listing {
  records: EntityRecord[];
  setAside: SetAsideRecord[];
}

/**
 * The whole listing, or undefined when a request of it could not be in hand before the
 * invocation's deadline (or the process stops): none is asked for then, and the listing is read
 * again whole by the next poll (one request while it holds fewer than a thousand records).
 */
async function listAll(
  definition: StreamDefinition,
  spec: SnapshotPollSpec,
  deps: PollDeps,
  pace: DeadlinePace,
): Promise<Listing | undefined> {
  if (!isOperationName(spec.operation))
    throw new BridgeError(`unknown operation ${spec.operation}`);
  const operation = OPERATIONS[spec.operation];
  if (pastDeadline(deps) || !pace.nextFits()) return undefined;
  pace.asking();
  if (operation.pagination) {
    const listing: Listing = { records: [], setAside: [] };
    for await (const page of pageRecords(
      deps.client,
      spec.operation as never,
      spec.request(PAGE_COUNT_MAX),
      { ...callOptions(deps, definition, 'live'), setAside: true },
    )) {
      pace.arrived(page.sentAt);
      listing.records.push(...page.records);
      listing.setAside.push(...(page.setAside ?? []));
      if (!page.last && (pastDeadline(deps) || !pace.nextFits())) return undefined;
    }
    return listing;
  }
  const { records, setAside, response, sentAt } = await callForListing(
    deps.client,
    spec.operation,
    spec.request(PAGE_COUNT_MAX),
    spec.itemsKey,
    { ...callOptions(deps, definition, 'live'), setAside: true },
  );
  pace.arrived(sentAt);
  return { records: spec.withResponse?.(records, response) ?? records, setAside };
}

/**
 * The entity id of a record set aside, read by hand from the record as sent (its `Id`, or a tax
 * environment's `Code`): undefined when that field itself breaks the contract (missing, not a
 * string, or an `Id` that is not a uuid: it names no stored record, while the record it stands
 * for, listed under it, would read as deleted).
 */
function setAsideKey(entityType: EntityType, record: SetAsideRecord): string | undefined {
  if (record.sent === undefined) return undefined;
  let key: string;
  try {
    key = entityIdOf(entityType, record.sent);
  } catch (error) {
    if (error instanceof ValidationError) return undefined;
    throw error;
  }
  // A tax environment's Code is any non-empty string (entityIdOf checks it); an Id is a uuid.
  return entityType === 'taxEnvironment' || UuidSchema.safeParse(key).success ? key : undefined;
}

/**
 * The ids of the records set aside, which are listed all the same (their snapshots stay, as
 * they are: not deleted), and whether any has no id: which stored record such a one is cannot
 * be told, so any stored record the listing lacks could be it.
 */
function setAsideIds(
  spec: SnapshotPollSpec,
  setAside: readonly SetAsideRecord[],
): { ids: string[]; unkeyed: boolean } {
  const ids: string[] = [];
  let unkeyed = false;
  for (const record of setAside) {
    const key = setAsideKey(spec.entityType, record);
    if (key === undefined) unkeyed = true;
    else ids.push(key);
  }
  return { ids, unkeyed };
}

/**
 * Snapshot diff for operations without a time filter (billing automations, tax environments):
 * list everything, diff each record, and treat stored live records that are no longer listed
 * as deleted. A record that breaks its schema is set aside (noted on the stream, see
 * StreamState.lastSetAside): its snapshot stays as it was, neither changed nor deleted. While
 * one set aside has no readable id (`Id`, a tax environment's `Code`), no stored record is taken
 * for deleted: each could be that one. The listing's other changes are published all the same.
 * Returns false, having judged nothing, when a request of the listing could not be in hand
 * before the invocation's deadline (see deadlinePace): the next poll lists it.
 */
export async function runSnapshot(
  definition: StreamDefinition,
  spec: SnapshotPollSpec,
  deps: PollDeps,
  state: StateHandle,
): Promise<boolean> {
  const listing = await listAll(definition, spec, deps, pollPace(deps));
  if (listing === undefined) return false;
  const { records, setAside } = listing;
  const observations: Observation[] = observe(spec.entityType, records);
  const kept = setAsideIds(spec, setAside);
  // A record set aside without an id could be any stored record the listing lacks: none is
  // taken for deleted until the listing holds no such record (its deletes wait, none is lost).
  if (!kept.unkeyed) {
    const listed = new Set([...observations.map((o) => o.entityId), ...kept.ids]);
    for await (const snapshots of deps.store.scanSnapshots(definition.streamId)) {
      for (const snapshot of snapshots) {
        if (!snapshot.deleted && !listed.has(snapshot.entityId))
          observations.push({ entityId: snapshot.entityId, record: null });
      }
    }
  }
  const emitCreated = emitsCreated(definition, state.current);
  const changes = await commitObservations(definition, deps, observations, emitCreated, {
    backfill: listingJudging(state.current),
    beforePublish: listingPartCheck(deps.store, state),
    // The next listing judges every entity again.
    keepUnconfirmed: true,
  });
  const now = deps.clock.now();
  const counts = { records: records.length + setAside.length, events: changes.published };
  // The poll's success save follows at once and writes it (one write per poll).
  state.stage(listingCommitted(state.current, counts, setAside, now));
  return true;
}
