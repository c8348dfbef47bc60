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

/** Who wrote and when: what every write-only event is built from. */
export interface WriteContext {
  connectionId: string;
  /** The connection's scope, for records that carry none. */
  scope: Scope;
  /** Detection time, epoch ms (from the caller's Clock). */
  now: number;
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
 * restriction.cleared). The id hashes connection, type, subject and the content hash of
 * `content`, so repeating the same write (same resulting content) gives the same id. Pure.
 */
export function buildWriteEvent(
  context: WriteContext,
  type: WriteEventType,
  subject: string,
  content: EntityRecord,
  data: Record<string, unknown>,
): PublishableEvent {
  const hash = contentHash(content, { volatileFields: DEFAULT_VOLATILE_FIELDS });
  return {
    specversion: CLOUDEVENTS_SPEC_VERSION,
    id: hashEventId(['write-event/v1', context.connectionId, type, subject, hash]),
    type,
    source: connectorSource(context.connectionId),
    subject,
    time: new Date(context.now).toISOString(),
    datacontenttype: EVENT_DATA_CONTENT_TYPE,
    data,
  };
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
