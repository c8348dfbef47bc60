import { contentHash } from '../changes/canonical.ts';
import { isSoftDeleted } from '../changes/event.ts';
import type { SnapshotHashes } from '../state/snapshot-hashes.ts';
import type { StoredSnapshot } from '../state/state-store.ts';
import {
  type ChangeContext,
  computeChanges,
  type Observation,
  type PageChanges,
} from './page-changes.ts';
import { type PollDeps, type StreamDefinition, withoutSnapshotHashes } from './poll-context.ts';

/**
 * Records diffed between two turns of the event loop. A 1,000-record page diffed at once held
 * the loop for a few hundred milliseconds in a backfill, stalling the webhooks in flight and
 * the live polls beside it; slices of this size take a few milliseconds each.
 */
export const DIFF_SLICE_RECORDS = 100;

/** {@link computeChanges} over slices of {@link DIFF_SLICE_RECORDS}, yielding between them. */
async function computeChangesInSlices(
  observations: readonly Observation[],
  stored: ReadonlyMap<string, StoredSnapshot>,
  context: ChangeContext,
): Promise<PageChanges> {
  if (observations.length <= DIFF_SLICE_RECORDS)
    return computeChanges(observations, stored, context);
  const changes: PageChanges = { events: [], writes: [] };
  for (let start = 0; start < observations.length; start += DIFF_SLICE_RECORDS) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const slice = computeChanges(
      observations.slice(start, start + DIFF_SLICE_RECORDS),
      stored,
      context,
    );
    changes.events.push(...slice.events);
    changes.writes.push(...slice.writes);
  }
  return changes;
}

/**
 * `observations` without the records whose content hash equals their snapshot's, as
 * `hashes` remembers it: unchanged, so neither read nor diffed (the overlap re-reads every
 * window's last seconds). The others carry the hash computed here, so it is not computed twice.
 * Hashes {@link DIFF_SLICE_RECORDS} records between two turns of the event loop.
 */
async function withoutUnchanged(
  observations: readonly Observation[],
  streamId: string,
  hashes: SnapshotHashes,
  context: ChangeContext,
): Promise<Observation[]> {
  const kept: Observation[] = [];
  let hashed = 0;
  for (const observation of observations) {
    const remembered = hashes.liveHash(streamId, observation.entityId);
    const { record } = observation;
    if (
      remembered === undefined ||
      record === null ||
      observation.deleted === true ||
      isSoftDeleted(record)
    ) {
      kept.push(observation);
      continue;
    }
    if (++hashed % DIFF_SLICE_RECORDS === 0) await new Promise<void>((r) => setImmediate(r));
    const hash = contentHash(record, { volatileFields: context.volatileFields });
    if (hash !== remembered) kept.push({ ...observation, hash });
  }
  return kept;
}

/** Notes the hashes of the snapshots read that stay as they are (no write follows for them). */
function rememberUnchanged(
  hashes: SnapshotHashes,
  streamId: string,
  stored: ReadonlyMap<string, StoredSnapshot>,
  changes: PageChanges,
): void {
  if (stored.size === 0) return;
  const written = new Set(changes.writes.map((w) => w.entityId));
  hashes.remember(
    streamId,
    [...stored.values()].filter((s) => !written.has(s.entityId)),
  );
}

/** A page's changes once published: `published` counts the events the publisher accepted. */
export interface PublishedChanges extends PageChanges {
  published: number;
}

/** The change context of a stream at this moment. */
export function changeContext(
  definition: StreamDefinition,
  deps: PollDeps,
  emitCreated: boolean,
): ChangeContext {
  return {
    connectionId: definition.connectionId,
    entityType: definition.spec.entityType,
    scope: definition.scope,
    volatileFields: definition.spec.volatileFields,
    emitCreated,
    now: deps.clock.now(),
  };
}

/**
 * Diffs observations against the stored snapshots (one batched read) and publishes the
 * events; the changed snapshots are returned for {@link storeChanges}, which must follow
 * (publish first, commit after: design.md, The flow).
 * `classify` marks the records that are deleted, for operations whose deleted records carry no flag.
 * `needsRead` may spare the read of records that cannot have a snapshot yet (a first sync).
 */
export async function publishObservations(
  definition: StreamDefinition,
  deps: PollDeps,
  observations: readonly Observation[],
  emitCreated: boolean,
  classify?: (ids: readonly string[]) => Promise<ReadonlySet<string>>,
  needsRead: (observation: Observation) => boolean = () => true,
): Promise<PublishedChanges> {
  if (observations.length === 0) return { events: [], writes: [], published: 0 };
  const context = changeContext(definition, deps, emitCreated);
  let seen = observations;
  if (classify) {
    // A deleted record of such an operation may look exactly like its live snapshot, so every
    // record of a non-empty page is classified (one request per page; an empty window costs none).
    const deleted = await classify(
      observations.filter((o) => o.record !== null).map((o) => o.entityId),
    );
    seen = observations.map((o) =>
      o.record !== null && deleted.has(o.entityId) ? { ...o, deleted: true } : o,
    );
  }
  if (deps.snapshotHashes) {
    seen = await withoutUnchanged(seen, definition.streamId, deps.snapshotHashes, context);
  }
  const toRead = seen.filter(needsRead).map((o) => o.entityId);
  const stored =
    toRead.length > 0 ? await deps.store.getSnapshots(definition.streamId, toRead) : new Map();
  const changes = await computeChangesInSlices(seen, stored, context);
  if (deps.snapshotHashes)
    rememberUnchanged(deps.snapshotHashes, definition.streamId, stored, changes);
  deps.observer?.onChanges?.(definition.streamId, changes);
  const published =
    changes.events.length > 0 ? (await deps.publisher.publish(changes.events)).published : 0;
  await deps.observer?.afterPublish?.(definition.streamId, changes);
  return { ...changes, published };
}

/** Stores the snapshots of published changes. */
export async function storeChanges(
  definition: StreamDefinition,
  deps: PollDeps,
  changes: PageChanges,
): Promise<void> {
  if (changes.writes.length === 0) return;
  await deps.store.putSnapshots(definition.streamId, changes.writes);
  deps.snapshotHashes?.remember(definition.streamId, changes.writes);
}

/**
 * {@link publishObservations} then {@link storeChanges}: a crash in between republishes the
 * same events with the same ids and loses none.
 */
export async function commitObservations(
  definition: StreamDefinition,
  deps: PollDeps,
  observations: readonly Observation[],
  emitCreated: boolean,
  classify?: (ids: readonly string[]) => Promise<ReadonlySet<string>>,
  needsRead?: (observation: Observation) => boolean,
): Promise<PublishedChanges> {
  // Not a live window: nothing to note, and a full read's hashes would only crowd live ones out.
  const bulk = withoutSnapshotHashes(deps);
  const changes = await publishObservations(
    definition,
    bulk,
    observations,
    emitCreated,
    classify,
    needsRead,
  );
  await storeChanges(definition, bulk, changes);
  return changes;
}
