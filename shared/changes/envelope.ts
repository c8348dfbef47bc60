import { z } from 'zod';
import { EVENT_ID_PATTERN } from './event-id.ts';

/** CloudEvents specification version of every event. */
export const CLOUDEVENTS_SPEC_VERSION = '1.0';

/** `datacontenttype` of every event: data is JSON (structured mode). */
export const EVENT_DATA_CONTENT_TYPE = 'application/json';

/** `source` of operational events (subscription.disabled, delivery.*, ping). */
export const BRIDGE_EVENT_SOURCE = 'change-bridge';

/** Prefix of the `source` of change events: `connector/<connectionId>`. */
export const CONNECTOR_SOURCE_PREFIX = 'connector/';

/**
 * The `source` of the change events of one connection.
 * @example connectorSource('main') // 'connector/main'
 */
export function connectorSource(connectionId: string): string {
  return `${CONNECTOR_SOURCE_PREFIX}${connectionId}`;
}

/**
 * The connection a change event's `source` names (`connector/<connectionId>`); `undefined` for
 * other sources (operational events). Pure.
 * @example connectionIdOfSource('connector/main') // 'main'
 */
export function connectionIdOfSource(source: string | undefined): string | undefined {
  if (source === undefined || !source.startsWith(CONNECTOR_SOURCE_PREFIX)) return undefined;
  return source.slice(CONNECTOR_SOURCE_PREFIX.length);
}

/**
 * The stream a change event came from: `<connectionId>:<entityType>` from its `source`
 * (`connector/<connectionId>`) and the entity part of its `type`; `undefined` for events of
 * other sources (operational events). Pure.
 * @example eventStreamId({ source: 'connector/main', type: 'customer.created' }) // 'main:customer'
 */
export function eventStreamId(event: {
  source?: string | undefined;
  type: string;
}): string | undefined {
  const connectionId = connectionIdOfSource(event.source);
  if (connectionId === undefined) return undefined;
  const dot = event.type.indexOf('.');
  if (dot <= 0) return undefined;
  return `${connectionId}:${event.type.slice(0, dot)}`;
}

/** `source` of a change event: `connector/<connectionId>`. */
// A plain regex rather than startsWith: zod writes startsWith as a non-standard JSON Schema
// `format`, which strict validators reject.
export const ConnectorSourceSchema = z.string().regex(/^connector\/.+$/);

/** An event id: `evt_` and 26 Crockford base32 characters. */
export const EventIdSchema = z.string().regex(EVENT_ID_PATTERN);

/**
 * The CloudEvents 1.0 structured-mode envelope around `data`, with the given `type` and
 * `source` schemas. Every catalogue schema is one of these.
 * @example cloudEventSchema(z.literal('ping'), z.literal('change-bridge'), z.object({ message: z.string() }))
 */
export function cloudEventSchema<
  T extends z.ZodType<string>,
  S extends z.ZodType<string>,
  D extends z.ZodType,
>(type: T, source: S, data: D) {
  return z.object({
    specversion: z.literal(CLOUDEVENTS_SPEC_VERSION),
    id: EventIdSchema,
    type,
    source,
    /** The entity id for change events; the subscription id for operational ones. */
    subject: z.string().min(1),
    /** Detection time, ISO 8601 UTC with milliseconds (`2026-01-01T00:00:00.000Z`). */
    time: z.iso.datetime(),
    datacontenttype: z.literal(EVENT_DATA_CONTENT_TYPE),
    data,
  });
}
