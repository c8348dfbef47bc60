import { contentHash, DEFAULT_VOLATILE_FIELDS } from '../changes/canonical.ts';
import type { EntityRecord, Scope } from '../changes/entity-types.ts';
import { scopeOf } from '../changes/entity-types.ts';
import {
  CLOUDEVENTS_SPEC_VERSION,
  connectorSource,
  EVENT_DATA_CONTENT_TYPE,
} from '../changes/envelope.ts';
import { hashEventId } from '../changes/event-id.ts';
import type { WriteEventType } from '../changes/write-event-schemas.ts';
import { isJsonObject } from '../json-object.ts';
import type { PublishableEvent } from '../publish/publishable-event.ts';
import type { StoredSnapshot } from '../state/state-store.ts';

/** Who wrote and when: what every write-only event is built from. */
export interface WriteContext {
  connectionId: string;
  /** The connection's scope, for records that carry none. */
  scope: Scope;
  /** Detection time, epoch ms (from the caller's Clock). */
  now: number;
  /**
   * The last event of each subject the proxy published, by subject ({@link WrittenVersion}s of
   * {@link writeOnlyStreamId}): what a write-only event's id is told apart from. Default none.
   */
  versions?: ReadonlyMap<string, StoredSnapshot>;
}

/**
 * The stream id under which the proxy keeps, per subject, the last write-only event it
 * published of `entityType` (no poll reads these entities, so no poll stream has this id).
 * @example writeOnlyStreamId('main', 'routingRule') // 'main:routingRule'
 */
export function writeOnlyStreamId(connectionId: string, entityType: string): string {
  return `${connectionId}:${entityType}`;
}

/** A write-only event and what the proxy keeps of it, once it is published. */
export interface WrittenEvent {
  event: PublishableEvent;
  /**
   * The subject's version to store in {@link writeOnlyStreamId}: `hash`, the id the event's
   * content alone gives (what a repeat of the same result has too), and `record.eventId`,
   * the event's id.
   */
  version: StoredSnapshot;
}

/** Objects of a JSON value that is an array, or none. */
export function recordsOf(value: unknown): EntityRecord[] {
  if (!Array.isArray(value)) return [];
  return value.filter((item): item is EntityRecord => isJsonObject(item));
}

/** The value of `key` when `value` is a JSON object, else undefined. */
export function fieldOf(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.entries(value).find(([name]) => name === key)?.[1];
}

/** The fields an update item sets: its keys except `idField`, sorted. */
export function setFields(item: EntityRecord | undefined, idField: string): string[] {
  if (!item) return [];
  return Object.keys(item)
    .filter((key) => key !== idField && item[key] !== undefined)
    .sort();
}

/**
 * Builds one write-only event (loyaltyProgram.updated, routingRule.updated, voucher.created,
 * restriction.cleared) and the version to keep of it. Its content id hashes connection, type,
 * subject and the content hash of `content`. The event's id is that content id the first
 * time; the kept event's id again when the subject's last event had the same content (the same
 * write repeated, with the same result); and otherwise the content id told apart by when that
 * last event was kept, so a subject that goes A→B→A gets a new id each time and a receiver
 * deduplicating on ids drops no change. Pure.
 */
export function buildWrittenEvent(
  context: WriteContext,
  type: WriteEventType,
  subject: string,
  content: EntityRecord,
  data: Record<string, unknown>,
): WrittenEvent {
  const hash = contentHash(content, { volatileFields: DEFAULT_VOLATILE_FIELDS });
  const parts = ['write-event/v1', context.connectionId, type, subject, hash];
  const contentId = hashEventId(parts);
  const last = context.versions?.get(subject);
  const lastId = last?.record.eventId;
  const id =
    last === undefined || typeof lastId !== 'string'
      ? contentId
      : last.hash === contentId
        ? lastId
        : hashEventId([...parts, `after:${last.updatedAt}`]);
  const event: PublishableEvent = {
    specversion: CLOUDEVENTS_SPEC_VERSION,
    id,
    type,
    source: connectorSource(context.connectionId),
    subject,
    time: new Date(context.now).toISOString(),
    datacontenttype: EVENT_DATA_CONTENT_TYPE,
    data,
  };
  const version: StoredSnapshot = {
    entityId: subject,
    hash: contentId,
    record: { eventId: id },
    updatedAt: Math.trunc(context.now),
  };
  return { event, version };
}

/** The `data` of an entity-shaped write event. */
export function writtenEntityData(
  context: WriteContext,
  entityType: string,
  change: 'created' | 'updated',
  record: EntityRecord,
  changedFields: readonly string[],
): Record<string, unknown> {
  return {
    entityType,
    entityId: String(record.Id),
    scope: scopeOf('customer', record, context.scope),
    change,
    current: record,
    changedFields: [...changedFields],
    patch: [],
  };
}
