import { ValidationError } from '../errors.ts';
import type { DispatchLane } from '../publish/publisher.ts';
import { type StoredSnapshot, snapshotFits } from '../state/state-store.ts';
import { POLLED_WRITES } from '../writes/events-of-write.ts';
import { storeGuarded } from './guarded-snapshots.ts';
import {
  type ChangeContext,
  computeChanges,
  type Observation,
  type PageChanges,
  republishedChanges,
} from './page-changes.ts';
import type { PollDeps, StreamDefinition } from './poll-context.ts';
import { takeUnconfirmed, unconfirmedSnapshots, withUnconfirmed } from './unconfirmed-events.ts';

/**
 * Records diffed between two turns of the event loop. A 1,000-record page diffed at once held
 * the loop for a few hundred milliseconds in a backfill, stalling the webhooks in flight and
 * the live polls beside it; slices of this size take a few milliseconds each.
 */
export const DIFF_SLICE_RECORDS = 100;

/** `compute` over slices of {@link DIFF_SLICE_RECORDS}, yielding between them. */
async function computeChangesInSlices(
  observations: readonly Observation[],
  compute: (slice: readonly Observation[]) => PageChanges,
): Promise<PageChanges> {
  if (observations.length <= DIFF_SLICE_RECORDS) return compute(observations);
  const changes: PageChanges = { events: [], writes: [] };
  for (let start = 0; start < observations.length; start += DIFF_SLICE_RECORDS) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const slice = compute(observations.slice(start, start + DIFF_SLICE_RECORDS));
    changes.events.push(...slice.events);
    changes.writes.push(...slice.writes);
    if (slice.announced) changes.announced = (changes.announced ?? 0) + slice.announced;
  }
  return changes;
}

/** What {@link publishObservations} may also be given. */
export interface PublishObservationsOptions {
  /** Marks the records that are deleted, for operations whose deleted records carry no flag. */
  classify?: (ids: readonly string[]) => Promise<ReadonlySet<string>>;
  /** Whether a record's snapshot must be read (a first sync may spare it); default always. */
  needsRead?: (observation: Observation) => boolean;
  /**
   * Epoch ms from which stored snapshots are the stream's own: one stored before (its
   * `updatedAt`) is judged as absent. A first sync's start: what a reset left behind is not its.
   */
  storedSince?: number | undefined;
  /** The dispatch lane of the events: bulk work's wait behind live polls' (default live). */
  lane?: DispatchLane;
  /** The backfill publishing what it reads, if any (see {@link ChangeContext.backfill}). */
  backfill?: ChangeContext['backfill'];
  /**
   * Run once the page's events are judged, before they are published (only when there are
   * any): throws to give the page up unpublished (see partStillCurrent).
   */
  beforePublish?: (() => Promise<void>) | undefined;
  /**
   * When the publish throws, store each changed entity's snapshot with the events attempted of
   * it (see unconfirmed-events.ts): for reads that judge every such entity again at the retry
   * (a window, which is read again, or a later one that finds the record changed; a listing).
   */
  keepUnconfirmed?: boolean;
}

/** A page's changes once published: `published` counts the events the publisher accepted. */
export interface PublishedChanges extends PageChanges {
  published: number;
  /**
   * Set for a page of an entity the write-through proxy also stores (see guarded-snapshots.ts):
   * whether its snapshots are stored only over the ones read, and when a proxied write of the
   * stream waiting for the page may go on.
   */
  storeGuard?: PageStoreGuard;
}

/** What a page's snapshots are stored under, when the write-through proxy may store them too. */
export interface GuardConditions {
  /** The snapshots the page read and judged against. */
  read: ReadonlyMap<string, StoredSnapshot>;
  /**
   * Snapshots stored before this epoch ms are not the stream's own, as at judging: one found
   * in the way is stored over (see GuardedStore.storedSince).
   */
  storedSince?: number | undefined;
  /** Epoch ms the page's publish ended. */
  publishedAt: number;
  /** The lane corrections go in. */
  lane: DispatchLane;
}

/**
 * A guardable page's hold on its stream's stored snapshots: {@link storeChanges} calls `begin`
 * as the page starts storing (the conditions to store under, or `undefined` where this
 * process's gate let it store in batches and no proxied write overtook it) and `end` once its
 * snapshots are stored or will not be, so a proxied write waiting for the page goes on.
 */
export interface PageStoreGuard {
  begin(): GuardConditions | undefined;
  end(): void;
}

/** Entity types whose snapshots the write-through proxy stores too. */
const WRITTEN_THROUGH: ReadonlySet<string> = new Set(Object.values(POLLED_WRITES));

/** The change context of a stream at this moment. */
export function changeContext(
  definition: StreamDefinition,
  deps: PollDeps,
  emitCreated: boolean,
  backfill?: ChangeContext['backfill'],
): ChangeContext {
  return {
    connectionId: definition.connectionId,
    entityType: definition.spec.entityType,
    scope: definition.scope,
    volatileFields: definition.spec.volatileFields,
    emitCreated,
    backfill,
    now: deps.clock.now(),
  };
}

/**
 * Diffs observations against the stored snapshots (one batched read) and publishes the
 * events; the changed snapshots are returned for {@link storeChanges}, which must follow
 * (publish first, commit after: design.md, The flow).
 * See {@link PublishObservationsOptions} for what else it takes.
 */
export async function publishObservations(
  definition: StreamDefinition,
  deps: PollDeps,
  observations: readonly Observation[],
  emitCreated: boolean,
  {
    classify,
    needsRead = () => true,
    lane = 'live',
    backfill,
    storedSince,
    beforePublish,
    keepUnconfirmed,
  }: PublishObservationsOptions = {},
): Promise<PublishedChanges> {
  if (observations.length === 0) return { events: [], writes: [], published: 0 };
  // A page of an entity the write-through proxy stores too, whatever the stream's standing (a
  // live or catch-up window, a first sync, a backfill pass judging against the snapshots): with
  // conditions, unless this process's gate says no proxied write of the stream overlaps it
  // (opened before its reads). A pass that republishes stores no snapshot.
  const guardable =
    backfill?.republish !== 'records' && WRITTEN_THROUGH.has(definition.spec.entityType);
  const ticket = guardable ? deps.snapshotGate?.openPage(definition.streamId) : undefined;
  try {
    const changes = await judgeAndPublish(definition, deps, observations, emitCreated, {
      classify,
      needsRead,
      lane,
      backfill,
      storedSince,
      beforePublish,
      keepUnconfirmed,
    });
    const conditions: GuardConditions = {
      read: changes.stored,
      storedSince,
      publishedAt: deps.clock.now(),
      lane,
    };
    await deps.observer?.afterPublish?.(definition.streamId, changes);
    const { stored: _stored, ...published } = changes;
    if (!guardable) return published;
    // Without a gate (the proxy in another process) or with a guarded ticket, always under
    // conditions; an unguarded ticket's page only when a proxied write stopped waiting for it.
    const storeGuard: PageStoreGuard = {
      begin: () => ((ticket?.beginStore() ?? true) ? conditions : undefined),
      end: () => ticket?.close(),
    };
    return { ...published, storeGuard };
  } catch (error) {
    ticket?.close();
    throw error;
  }
}

/** Reads the snapshots a page needs, judges its records and publishes their events. */
async function judgeAndPublish(
  definition: StreamDefinition,
  deps: PollDeps,
  observations: readonly Observation[],
  emitCreated: boolean,
  {
    classify,
    needsRead = () => true,
    lane = 'live',
    backfill,
    storedSince,
    beforePublish,
    keepUnconfirmed = false,
  }: PublishObservationsOptions,
): Promise<PageChanges & { published: number; stored: Map<string, StoredSnapshot> }> {
  // A pass that republishes reads no snapshot (see republishedChanges).
  const toRead =
    backfill?.republish === 'records' ? [] : observations.filter(needsRead).map((o) => o.entityId);
  const stored: Map<string, StoredSnapshot> =
    toRead.length > 0 ? await deps.store.getSnapshots(definition.streamId, toRead) : new Map();
  if (storedSince !== undefined) {
    for (const [entityId, snapshot] of stored) {
      if (snapshot.updatedAt < storedSince) stored.delete(entityId);
    }
  }
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
  // Events a failed publish may have put out in part go again first (unconfirmed-events.ts).
  const taken = takeUnconfirmed(stored, seen);
  const context = changeContext(definition, deps, emitCreated, backfill);
  const changes = withUnconfirmed(
    await computeChangesInSlices(seen, (slice) =>
      backfill?.republish === 'records'
        ? republishedChanges(slice, { ...context, backfill })
        : computeChanges(slice, taken.judged, context),
    ),
    taken,
  );
  deps.observer?.onChanges?.(definition.streamId, changes);
  if (changes.events.length > 0) await beforePublish?.();
  let published = 0;
  if (changes.events.length > 0) {
    try {
      published = (await deps.publisher.publish(changes.events, { lane, deadline: deps.deadline }))
        .published;
    } catch (error) {
      if (keepUnconfirmed) await storeUnconfirmed(definition, deps, changes, stored);
      throw error;
    }
  }
  return { ...changes, published, stored };
}

/**
 * After a publish of `changes` threw: stores the changed entities' snapshots with the events
 * attempted of them (see unconfirmed-events.ts), each only over the snapshot the page read. A
 * store that fails or refuses leaves those entities as they were: judged again as before.
 */
async function storeUnconfirmed(
  definition: StreamDefinition,
  deps: PollDeps,
  changes: PageChanges,
  read: ReadonlyMap<string, StoredSnapshot>,
): Promise<void> {
  const { streamId } = definition;
  const snapshots = unconfirmedSnapshots(changes).filter((s) => snapshotFits(streamId, s));
  if (snapshots.length === 0) return;
  try {
    await deps.store.replaceSnapshots(
      streamId,
      snapshots.map((snapshot) => ({ snapshot, expected: read.get(snapshot.entityId) })),
    );
  } catch {
    // The publish's error is the one to report; these entities are judged again as before.
  }
}

/**
 * Stores the snapshots of published changes. A record too large for a stored item (400 KB
 * of JSON, far past the 256 KB an event may hold: its event was refused as EventTooLarge
 * and reported) keeps no snapshot, and the others are stored: the store refuses a whole
 * batch for one such record, which would fail the page, and with it every later poll of the
 * stream, for good. That entity is then judged against its last stored snapshot, or as new.
 */
export async function storeChanges(
  definition: StreamDefinition,
  deps: PollDeps,
  changes: PageChanges & Pick<PublishedChanges, 'storeGuard'>,
): Promise<void> {
  try {
    await storePageSnapshots(definition, deps, changes);
  } finally {
    changes.storeGuard?.end();
  }
}

async function storePageSnapshots(
  definition: StreamDefinition,
  deps: PollDeps,
  changes: PageChanges & Pick<PublishedChanges, 'storeGuard'>,
): Promise<void> {
  if (changes.writes.length === 0) return;
  const { streamId } = definition;
  const guard = changes.storeGuard?.begin();
  const put = (writes: readonly StoredSnapshot[]) =>
    guard
      ? storeGuarded({
          store: deps.store,
          streamId,
          connectionId: definition.connectionId,
          entityType: definition.spec.entityType,
          scope: definition.scope,
          volatileFields: definition.spec.volatileFields,
          read: guard.read,
          ...(guard.storedSince === undefined ? {} : { storedSince: guard.storedSince }),
          writes,
          published: new Set(changes.events.map((event) => event.subject)),
          publishedAt: guard.publishedAt,
          now: deps.clock.now(),
          publish: async (events) => {
            await deps.publisher.publish(events, { lane: guard.lane, deadline: deps.deadline });
          },
        }).then(() => undefined)
      : deps.store.putSnapshots(streamId, writes);
  try {
    await put(changes.writes);
  } catch (error) {
    // Sizes are checked only once the store refused: the usual batch pays nothing for them.
    if (!(error instanceof ValidationError)) throw error;
    const fitting = changes.writes.filter((write) => snapshotFits(streamId, write));
    if (fitting.length === changes.writes.length) throw error;
    if (fitting.length > 0) await put(fitting);
  }
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
  options: PublishObservationsOptions = {},
): Promise<PublishedChanges> {
  const changes = await publishObservations(definition, deps, observations, emitCreated, options);
  await storeChanges(definition, deps, changes);
  return changes;
}
