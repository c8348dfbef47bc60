import type { EntityEvent } from '../changes/entity-event-schema.ts';
import {
  type EntityRecord,
  type EntityType,
  entityIdOf,
  type Scope,
  scopeOf,
} from '../changes/entity-types.ts';
import { buildChangeEvent, detectChange, isSoftDeleted } from '../changes/event.ts';
import type { StoredSnapshot } from '../state/state-store.ts';

/** Tombstones are kept this long, so a deleted record re-read in an overlap emits nothing twice. */
export const TOMBSTONE_TTL_MS = 35 * 24 * 60 * 60 * 1000;

/**
 * How a backfill that publishes (`backfill --emit`) judges records. Its `created` events carry
 * its id (ids of their own, see EventIdParts.backfillId, with no snapshot version: the same
 * content gives the same id within one backfill). Every entity that existed when it began
 * (`startedAt`) is published once as `created`, with the record the backfill found it in:
 * - by the pass reading it (`republish`, see there);
 * - by a live poll changing or deleting it before the pass read it (`unreadFrom`: where the
 *   pass reads now, epoch ms of UpdatedUtc; a stored record updated at or after it, or without
 *   UpdatedUtc, is unread), or changing it out of the pass's reach (`passEnd`) before the pass
 *   was done reading (`readToEndAt`): its `created` of the stored record goes just before the
 *   change. The pass reads records where they are when it gets there, so one it has read past
 *   may have moved before it did (changed after the backfill began, judged by a live poll
 *   seconds later; or touched, its stored place then older than where it stood).
 * Both give the same id for the same record, so a receiver deduplicating on ids gets one.
 */
export interface BackfillContext {
  id: string;
  /** Epoch ms the backfill began. */
  startedAt: number;
  /**
   * Publishing what the pass reads: `records`, a windowed stream's pass, republishes every
   * present record without judging it (no snapshot read or write: its live polls judge
   * changes); `unchanged`, a listing's poll that is the whole pass, judges as usual and also
   * republishes each unchanged entity stored before the backfill. False: a live poll.
   */
  republish: false | 'records' | 'unchanged';
  unreadFrom?: number | undefined;
  /**
   * Epoch ms the pass reads UpdatedUtc up to: an unchanged record a live poll finds updated at
   * or after it (only "touched") has left the pass's reach, and gets its `created` there.
   */
  passEnd?: number | undefined;
  /**
   * When the pass was done reading its last window (epoch ms; null: not yet). An entity changed
   * out of the pass's reach before then may have left its place before the pass got there: its
   * `created` goes before the change (where the pass did find it first, the same id again,
   * which the dispatcher delivers once). Absent: not known (the rule above alone).
   */
  readToEndAt?: number | null | undefined;
}

/** Whether a snapshot's entity is still to be published as `created` by the backfill. Pure. */
function awaitsBackfill(previous: StoredSnapshot | undefined, backfill: BackfillContext): boolean {
  return (
    previous !== undefined && previous.deleted !== true && previous.updatedAt <= backfill.startedAt
  );
}

/** Whether the pass has not read the stored record yet (see {@link BackfillContext.unreadFrom}). Pure. */
function unreadByPass(previous: StoredSnapshot, backfill: BackfillContext): boolean {
  if (backfill.unreadFrom === undefined) return false;
  const updated = previous.record.UpdatedUtc;
  return typeof updated !== 'string' || !(Date.parse(updated) < backfill.unreadFrom);
}

/**
 * Whether the pass had not yet read through to its end when `moved` (the record as it is now,
 * out of the pass's reach) was updated there (see BackfillContext.readToEndAt): the entity may
 * have left before the pass found it. Where it stood before is not known for sure (a touch,
 * which moves a record's UpdatedUtc and stores no snapshot, may have moved it anywhere up to the
 * pass's end), so only a pass done with its last window before the change surely published
 * it. Pure.
 */
function passUnfinishedAt(moved: EntityRecord, backfill: BackfillContext): boolean {
  const { readToEndAt, passEnd } = backfill;
  if (readToEndAt === undefined || passEnd === undefined) return false;
  const movedAt = moved.UpdatedUtc;
  if (typeof movedAt !== 'string') return true;
  return readToEndAt === null || Date.parse(movedAt) < readToEndAt;
}

/** Whether a record a live poll found unchanged left the pass's reach (see BackfillContext.passEnd). Pure. */
function movedPastPass(current: EntityRecord, backfill: BackfillContext): boolean {
  if (backfill.passEnd === undefined) return false;
  const updated = current.UpdatedUtc;
  return typeof updated !== 'string' || !(Date.parse(updated) < backfill.passEnd);
}

/**
 * Whether `record` is an older version than the live stored snapshot: its UpdatedUtc is before
 * the snapshot's (records without UpdatedUtc are never judged older). Pure.
 */
function readBefore(record: EntityRecord, previous: StoredSnapshot | undefined): boolean {
  if (previous === undefined || previous.deleted === true) return false;
  const read = record.UpdatedUtc;
  const kept = previous.record.UpdatedUtc;
  if (typeof read !== 'string' || typeof kept !== 'string') return false;
  return Date.parse(read) < Date.parse(kept);
}

/** Who the changes belong to and how they are judged. */
export interface ChangeContext {
  connectionId: string;
  entityType: EntityType;
  /** The stream's scope, for records that carry none. */
  scope: Scope;
  volatileFields: readonly string[];
  /** False during a `baseline` initial sync: records are stored silently. */
  emitCreated: boolean;
  /** A backfill publishing what it reads (`backfill --emit`): see {@link BackfillContext}. */
  backfill?: BackfillContext | undefined;
  /** Detection time, epoch ms. */
  now: number;
}

/** The events to publish and the snapshots to store afterwards. */
export interface PageChanges {
  events: EntityEvent[];
  writes: StoredSnapshot[];
  /** Of `events`, the backfill's `created` a live poll sent ahead of a change (see BackfillContext). */
  announced?: number;
}

/** One fetched record, or the knowledge that a stored entity no longer exists. */
export type Observation =
  | { entityId: string; record: EntityRecord; deleted?: boolean }
  | { entityId: string; record: null };

/** Reads the entity ids of fetched records, keeping the last of duplicates. */
export function observe(
  entityType: EntityType,
  records: readonly EntityRecord[],
  deletedIds?: ReadonlySet<string>,
): Observation[] {
  const byId = new Map<string, Observation>();
  for (const record of records) {
    const entityId = entityIdOf(entityType, record);
    byId.set(entityId, { entityId, record, deleted: deletedIds?.has(entityId) ?? false });
  }
  return [...byId.values()];
}

/** What the `created` events of one entity judged on a page share (see createdEvent). */
interface CreatedEntity {
  entityId: string;
  scope: Scope;
  /** When the entity's snapshot was stored, if one was. */
  previousVersion: number | undefined;
  /** The observed record's hash. */
  observedHash: string | undefined;
}

/**
 * A `created` of `current` (its hash `currentHash`); the backfill's, named by its content alone
 * (see BackfillContext), when `ofBackfill`. A function of its own, not a closure made for each
 * record: the CLI bundle keeps function names (esbuild's keepNames), which defines `name` on
 * every closure it makes and turns it into a slow object, one a record. Pure.
 */
function createdEvent(
  context: ChangeContext,
  entity: CreatedEntity,
  current: EntityRecord,
  currentHash: string | undefined,
  ofBackfill: boolean,
): EntityEvent {
  const backfill = context.backfill;
  return buildChangeEvent({
    connectionId: context.connectionId,
    entityType: context.entityType,
    detectedAt: context.now,
    volatileFields: context.volatileFields,
    previousVersion: ofBackfill ? undefined : entity.previousVersion,
    ...(backfill && ofBackfill ? { backfillId: backfill.id } : {}),
    currentHash,
    entityId: entity.entityId,
    scope: entity.scope,
    change: 'created',
    current,
  });
}

/**
 * Decides the events and snapshot writes of one page (or sweep, or listing). Pure.
 * Unchanged records produce neither an event nor a write; a delete writes a tombstone that
 * keeps the last record and expires after {@link TOMBSTONE_TTL_MS}.
 */
export function computeChanges(
  observations: readonly Observation[],
  stored: ReadonlyMap<string, StoredSnapshot>,
  context: ChangeContext,
): PageChanges {
  const events: EntityEvent[] = [];
  const writes: StoredSnapshot[] = [];
  let announced = 0;
  const { volatileFields, connectionId, entityType } = context;
  const detectedAt = context.now;
  for (const observation of observations) {
    const previous = stored.get(observation.entityId);
    const deletedByFlag = observation.record !== null && observation.deleted === true;
    const current = observation.record === null || deletedByFlag ? undefined : observation.record;
    const decision = detectChange({
      previous,
      current,
      volatileFields,
    });
    // A changed record read before a newer version was stored (by the write-through proxy,
    // between this page's read and its judging) is not news: judged, it would move the
    // snapshot back in time and send its subject back, then forward again at the next poll.
    if (
      decision.change !== 'none' &&
      observation.record !== null &&
      readBefore(observation.record, previous)
    )
      continue;
    // A deletion is of the entity as it was stored (a record set aside for breaking its schema
    // may be judged deleted: its own fields are not to be trusted).
    const record =
      (decision.change === 'deleted' ? previous?.record : undefined) ??
      observation.record ??
      previous?.record ??
      {};
    const scope = scopeOf(context.entityType, record, context.scope);
    const entityId = observation.entityId;
    // Event inputs are written out member by member: spreading a shared base into each copied it.
    const previousVersion = previous?.updatedAt;
    const observedHash = decision.currentHash ?? undefined;
    const backfill = context.backfill;
    const entity: CreatedEntity = { entityId, scope, previousVersion, observedHash };
    const ofBackfill = backfill !== undefined;
    if (
      backfill !== undefined &&
      (decision.change === 'updated' || decision.change === 'deleted') &&
      awaitsBackfill(previous, backfill) &&
      (unreadByPass(previous!, backfill) ||
        (observation.record !== null &&
          movedPastPass(observation.record, backfill) &&
          passUnfinishedAt(observation.record, backfill)))
    ) {
      // The backfill's `created` of the entity as it stood, before the change that moves it
      // out of the pass's reach (the pass would have sent this very event).
      events.push(createdEvent(context, entity, previous!.record, previous!.hash, ofBackfill));
      announced++;
    }
    switch (decision.change) {
      case 'created':
      case 'updated': {
        const currentRecord = current as EntityRecord;
        if (decision.change === 'updated') {
          events.push(
            buildChangeEvent({
              connectionId,
              entityType,
              detectedAt,
              volatileFields,
              previousVersion,
              currentHash: observedHash,
              entityId,
              scope,
              change: 'updated',
              current: currentRecord,
              previous: previous!.record,
            }),
          );
        } else if (context.emitCreated) {
          // A restore (its tombstone stored) is a change after the entity's `deleted`: named as
          // a live change (after the tombstone's version), never as the backfill's `created`,
          // whose id, by content alone, the entity's first `created` may have had (seen in the
          // soak: the restore, as it was before, was then not delivered again).
          events.push(
            createdEvent(
              context,
              entity,
              currentRecord,
              observedHash,
              ofBackfill && !previous?.deleted,
            ),
          );
        }
        writes.push({
          entityId,
          hash: decision.currentHash!,
          record: currentRecord,
          scope,
          updatedAt: context.now,
        });
        break;
      }
      case 'deleted':
        events.push(
          buildChangeEvent({
            connectionId,
            entityType,
            detectedAt,
            volatileFields,
            previousVersion,
            currentHash: observedHash,
            entityId,
            scope,
            change: 'deleted',
            previous: previous!.record,
          }),
        );
        writes.push({
          entityId,
          hash: previous!.hash,
          record: previous!.record,
          scope,
          deleted: true,
          expiresAt: Math.ceil((context.now + TOMBSTONE_TTL_MS) / 1000),
          updatedAt: context.now,
        });
        break;
      case 'none':
        if (current === undefined || backfill === undefined || !awaitsBackfill(previous, backfill))
          break;
        // Unchanged, live and stored before the backfill (one stored since was published since).
        if (backfill.republish === 'unchanged')
          events.push(createdEvent(context, entity, current, observedHash, true));
        else if (
          movedPastPass(current, backfill) &&
          (unreadByPass(previous!, backfill) || passUnfinishedAt(current, backfill))
        ) {
          // Touched (only UpdatedUtc moved) out of the pass's reach before the pass read where
          // it stood: the pass will not find it, or did not. Stored again, so announced once.
          events.push(createdEvent(context, entity, current, observedHash, true));
          announced++;
          writes.push({
            entityId,
            hash: decision.currentHash!,
            record: current,
            scope,
            updatedAt: context.now,
          });
        }
        break;
    }
  }
  return announced > 0 ? { events, writes, announced } : { events, writes };
}

/**
 * What a backfill pass that emits publishes of its records (see BackfillContext): a `created`
 * event of each present record (neither flagged deleted nor soft-deleted) under the backfill's
 * id, with no snapshot read or written. The stream's live polls judge changes; the pass only
 * sends again what exists. Pure.
 */
export function republishedChanges(
  observations: readonly Observation[],
  context: ChangeContext & { backfill: BackfillContext },
): PageChanges {
  const events: EntityEvent[] = [];
  for (const observation of observations) {
    const record = observation.record;
    if (record === null || observation.deleted === true || isSoftDeleted(record)) continue;
    events.push(
      buildChangeEvent({
        connectionId: context.connectionId,
        entityType: context.entityType,
        detectedAt: context.now,
        volatileFields: context.volatileFields,
        backfillId: context.backfill.id,
        entityId: observation.entityId,
        scope: scopeOf(context.entityType, record, context.scope),
        change: 'created',
        current: record,
      }),
    );
  }
  return { events, writes: [] };
}
