import { BridgeError } from '../errors.ts';
import { contentHash, DEFAULT_VOLATILE_FIELDS } from './canonical.ts';
import { diffRecords } from './diff.ts';
import type { EntityEvent } from './entity-event-schema.ts';
import type {
  ChangeKind,
  EntityEventKind,
  EntityRecord,
  EntityType,
  Scope,
} from './entity-types.ts';
import { CLOUDEVENTS_SPEC_VERSION, connectorSource, EVENT_DATA_CONTENT_TYPE } from './envelope.ts';
import { type EventIdParts, eventId } from './event-id.ts';
import { recordFields } from './record-fields.ts';

/** What every entity event is built from, whatever its kind. */
export interface EntityEventInputBase {
  connectionId: string;
  entityType: EntityType;
  entityId: string;
  scope: Scope;
  /** Detection time, epoch milliseconds (from the caller's Clock). */
  detectedAt: number;
  /** Top-level fields ignored for hashing and changedFields; default `['UpdatedUtc']`. */
  volatileFields?: readonly string[];
  /** When the snapshot this change is measured against was stored (see {@link EventIdParts}). */
  previousVersion?: number | undefined;
  /**
   * {@link contentHash} of `current` with these volatile fields, when the caller has it (change
   * detection does): hashing a record again is a copy, a serialisation and a SHA-256 per event.
   */
  currentHash?: string | undefined;
  /** The backfill that published this event again (see {@link EventIdParts.backfillId}). */
  backfillId?: string | undefined;
}

/** Input of {@link buildChangeEvent}: which records must be present depends on `change`. */
export type ChangeEventInput = EntityEventInputBase &
  (
    | { change: 'created'; current: EntityRecord; previous?: null }
    | { change: 'updated'; current: EntityRecord; previous: EntityRecord }
    | { change: 'deleted'; current?: null; previous: EntityRecord }
  );

/** Input of {@link buildSnapshotEvent}: the full current state of one entity. */
export type SnapshotEventInput = EntityEventInputBase & {
  current: EntityRecord;
  /**
   * The event's id, when the caller's scheme differs (a resync's is per subscription and time):
   * `current` is then not hashed. Default: the content-hash id.
   */
  id?: string;
  /** The event's source, when not the connection's (a record of no connection: the bridge's). */
  source?: string;
};

/** The id of a change event of `input` whose records hash to `hash` (see {@link eventId}). */
function idOf(input: EntityEventInputBase, change: EntityEventKind, hash: string): string {
  return eventId({
    connectionId: input.connectionId,
    entityType: input.entityType,
    entityId: input.entityId,
    change,
    contentHash: hash,
    previousVersion: input.previousVersion,
    backfillId: input.backfillId,
  });
}

/**
 * The CloudEvents envelope of `data`, written as one object (no envelope copied into another):
 * `source` the connection's unless given.
 */
function enveloped<D>(
  input: EntityEventInputBase,
  change: EntityEventKind,
  id: string,
  data: D,
  source = connectorSource(input.connectionId),
) {
  return {
    specversion: CLOUDEVENTS_SPEC_VERSION,
    id,
    type: `${input.entityType}.${change}`,
    source,
    subject: input.entityId,
    time: new Date(input.detectedAt).toISOString(),
    datacontenttype: EVENT_DATA_CONTENT_TYPE,
    data,
  } as const;
}

function requireRecord(record: EntityRecord | null | undefined, what: string): EntityRecord {
  if (record === null || record === undefined) {
    throw new BridgeError(`cannot build the event: ${what} is required for this change kind`);
  }
  return record;
}

/**
 * Builds the CloudEvents envelope of one change (design.md, Public contracts). Pure.
 *
 * - created: `current` set, `previous` null; `changedFields` lists every non-volatile field
 *   of the new record and `patch` is empty (there is nothing to patch from).
 * - updated: `current` and `previous`; `changedFields` and `patch` from {@link diffRecords}.
 * - deleted: `current` null, `previous` the last stored snapshot; `changedFields` and
 *   `patch` are empty.
 *
 * The id hashes the content hash of `current`, or for a delete that of `previous`.
 * Throws {@link BridgeError} when a record the change kind needs is missing.
 */
export function buildChangeEvent(input: ChangeEventInput): EntityEvent {
  const volatileFields = input.volatileFields ?? DEFAULT_VOLATILE_FIELDS;
  const { entityType, entityId, scope } = input;
  if (input.change === 'deleted') {
    const previous = requireRecord(input.previous, 'previous');
    const hash = contentHash(previous, { volatileFields });
    return enveloped(input, 'deleted', idOf(input, 'deleted', hash), {
      entityType,
      entityId,
      scope,
      change: 'deleted',
      current: null,
      previous,
      changedFields: [],
      patch: [],
    });
  }
  const current = requireRecord(input.current, 'current');
  const hash = input.currentHash ?? contentHash(current, { volatileFields });
  if (input.change === 'created') {
    const changedFields = recordFields(current, volatileFields);
    return enveloped(input, 'created', idOf(input, 'created', hash), {
      entityType,
      entityId,
      scope,
      change: 'created',
      current,
      previous: null,
      changedFields,
      patch: [],
    });
  }
  const previous = requireRecord(input.previous, 'previous');
  const { changedFields, patch } = diffRecords(previous, current, { volatileFields });
  return enveloped(input, 'updated', idOf(input, 'updated', hash), {
    entityType,
    entityId,
    scope,
    change: 'updated',
    current,
    previous,
    changedFields,
    patch,
  });
}

/**
 * Builds a `<entity>.snapshot` event for a resync: the current state of one entity, with
 * `previous` null, no changed fields and an empty patch. Its id is deterministic like a
 * change event's (kind `snapshot`, content hash of `current`), so resending the same
 * state gives the same id, unless `input.id` gives another. Pure.
 */
export function buildSnapshotEvent(input: SnapshotEventInput): EntityEvent {
  const volatileFields = input.volatileFields ?? DEFAULT_VOLATILE_FIELDS;
  const id = input.id ?? idOf(input, 'snapshot', contentHash(input.current, { volatileFields }));
  return enveloped(
    input,
    'snapshot',
    id,
    {
      entityType: input.entityType,
      entityId: input.entityId,
      scope: input.scope,
      change: 'snapshot',
      current: input.current,
      previous: null,
      changedFields: [],
      patch: [],
    },
    input.source,
  );
}

/**
 * The same event without `data.previous` and `data.patch` and with `data.truncated: true`,
 * for a transport whose size limit the full event exceeds (EventBridge entries are at
 * most 256 KB). Id, type and `current` stay, so consumers can still act and deduplicate.
 * The result still parses with the event's catalogue schema (`previous` and `patch` are
 * optional there).
 */
export function thinEvent<T extends { data: { previous?: unknown; patch?: unknown } }>(
  event: T,
): T & { data: { truncated: true } } {
  const { previous: _previous, patch: _patch, ...data } = event.data;
  return { ...event, data: { ...data, truncated: true } };
}

/** A snapshot of one entity as the state store keeps it. */
export interface StoredSnapshot {
  /** {@link contentHash} of `record`. */
  hash: string;
  record: EntityRecord;
  /** True for a tombstone: the entity was seen deleted and its delete was published. */
  deleted?: boolean;
}

/** Input of {@link detectChange}. */
export interface DetectChangeInput {
  /** The stored snapshot, if this entity was seen before: its hash decides, its record is not read. */
  previous?: Pick<StoredSnapshot, 'hash' | 'deleted'> | undefined;
  /** The record as fetched now; absent when a full sweep no longer finds it. */
  current?: EntityRecord | undefined;
  volatileFields?: readonly string[];
}

/** The decision of {@link detectChange}. */
export interface DetectedChange {
  change: ChangeKind | 'none';
  /** Content hash of `current` (null when there is no current record): what to store. */
  currentHash: string | null;
}

/**
 * True when a record is soft-deleted: `IsActive === false` or `ActivityState` `Deleted`
 * (connector-api.md, States and transitions), in any letter case: the record's field is a free
 * string that the contract describes as "active or deleted", its filter values as `Deleted`.
 */
export function isSoftDeleted(record: EntityRecord): boolean {
  if (record.IsActive === false) return true;
  const state = record.ActivityState;
  return typeof state === 'string' && state.toLowerCase() === 'deleted';
}

/**
 * Decides what a fetched record means against the stored snapshot. Pure.
 *
 * | stored snapshot       | fetched record                   | change  |
 * |-----------------------|----------------------------------|---------|
 * | none                  | none                             | none    |
 * | none                  | soft-deleted                     | none    |
 * | none                  | active                           | created |
 * | live                  | none (gone from a full sweep)    | deleted |
 * | live                  | soft-deleted                     | deleted |
 * | live                  | active, same hash                | none    |
 * | live                  | active, different hash           | updated |
 * | tombstone (deleted)   | none                             | none    |
 * | tombstone (deleted)   | soft-deleted                     | none    |
 * | tombstone (deleted)   | active (restored)                | created |
 *
 * "Same hash" compares {@link contentHash} (key order and volatile fields ignored) with the
 * stored hash.
 */
export function detectChange(input: DetectChangeInput): DetectedChange {
  const { previous, current } = input;
  const currentHash =
    current === undefined ? null : contentHash(current, { volatileFields: input.volatileFields });
  const live = previous !== undefined && previous.deleted !== true;
  const present = current !== undefined && !isSoftDeleted(current);
  if (!live) return { change: present ? 'created' : 'none', currentHash };
  if (!present) return { change: 'deleted', currentHash };
  return { change: currentHash === previous.hash ? 'none' : 'updated', currentHash };
}
