import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { z } from 'zod';
import { eventJson } from './event-json.ts';
import { type PublishableEvent, utf8Bytes } from './publishable-event.ts';

/** PutEvents takes at most 10 entries per request (EventBridge quota). */
export const PUT_EVENTS_MAX_ENTRIES = 10;

/**
 * The most bytes of one PutEvents entry, and of a request's entries together, by
 * {@link eventBridgeEntryBytes}: EventBridge wants the total entry size less than 256 KB
 * ("Calculating PutEvents event entry size"), so 262,143.
 */
export const PUT_EVENTS_MAX_BYTES = 256 * 1024 - 1;

/** The default EventBridge `Source` of every event change-bridge publishes. */
export const DEFAULT_EVENT_SOURCE = 'change-bridge';

/** The most characters of an EventBridge `Source` (PutEventsRequestEntry). */
export const EVENT_SOURCE_MAX_LENGTH = 256;

/**
 * An EventBridge `Source` PutEvents takes: 1 to 256 characters, not starting with `aws.`
 * (the prefix is AWS services' own). PutEvents refuses every entry of any other, so the
 * variables and the CDK prop that set it are checked here, at start and at synth, rather than
 * each publish failing for ever. Messages never show the value. Pure.
 * @example EventSourceSchema.safeParse('aws.hotel').success === false
 */
export const EventSourceSchema = z
  .string()
  .min(1, { error: 'must not be empty' })
  .max(EVENT_SOURCE_MAX_LENGTH, {
    error: `must be at most ${EVENT_SOURCE_MAX_LENGTH} characters (EventBridge's limit for an event's source)`,
  })
  .refine((source) => !source.startsWith('aws.'), {
    error: "must not start with aws. (EventBridge keeps that prefix for AWS services' events)",
  });

/** Where entries go and how they are labelled. */
export interface EventBridgeEntryOptions {
  /** EventBridge `Source` (default `change-bridge`); the routing rule matches on it. */
  source: string;
  /** Bus name or ARN (default `default`). */
  eventBusName: string;
}

/**
 * The `Resources` of an event, for rules that filter by tenant or entity without reading
 * the detail: `change-bridge:enterprise/<id>`, `change-bridge:chain/<id>` (when the scope
 * has them) and `change-bridge:entity/<entityType>/<entityId>`. Rules can also filter on
 * the detail: `detail.type`, `detail.data.entityType`, `detail.data.change`,
 * `detail.data.scope.enterpriseId`, `detail.data.scope.chainId`, `detail.data.truncated`.
 * @example { resources: [{ prefix: 'change-bridge:enterprise/' }] }
 */
export function eventResources(event: PublishableEvent): string[] {
  const resources: string[] = [];
  const scope = event.data.scope;
  if (scope?.enterpriseId) resources.push(`change-bridge:enterprise/${scope.enterpriseId}`);
  if (scope?.chainId) resources.push(`change-bridge:chain/${scope.chainId}`);
  if (event.data.entityType !== undefined && event.data.entityId !== undefined) {
    resources.push(`change-bridge:entity/${event.data.entityType}/${event.data.entityId}`);
  }
  return resources;
}

/** A PutEvents entry with its sizes. */
export interface SizedEventBridgeEntry {
  entry: PutEventsRequestEntry;
  /** The entry's size as EventBridge counts it ({@link eventBridgeEntryBytes}). */
  bytes: number;
  /** UTF-8 bytes of its `Detail`. */
  detailBytes: number;
}

/**
 * The PutEvents entry of an event: `DetailType` is the event type, `Detail` the whole
 * CloudEvents JSON, `Time` the detection time (so EventBridge's envelope `time` is it); with
 * its sizes, the Detail's taken as it is written ({@link eventJson}) rather than counted again in
 * the finished text.
 */
export function sizedEventBridgeEntry(
  event: PublishableEvent,
  options: EventBridgeEntryOptions,
): SizedEventBridgeEntry {
  const detail = eventJson(event);
  const entry: PutEventsRequestEntry = {
    Source: options.source,
    DetailType: event.type,
    Detail: detail.json,
    EventBusName: options.eventBusName,
    Resources: eventResources(event),
    Time: new Date(event.time),
  };
  return {
    entry,
    bytes: eventBridgeEntryBytes(entry, detail.bytes),
    detailBytes: detail.bytes,
  };
}

/**
 * Size of an entry as EventBridge counts it ("Calculating PutEvents event entry size"):
 * UTF-8 bytes of Source, DetailType, Detail and each Resource, plus 14 when Time is set.
 * EventBusName does not count. `detailBytes`: the Detail's UTF-8 length when the caller knows
 * it (counted otherwise).
 */
export function eventBridgeEntryBytes(entry: PutEventsRequestEntry, detailBytes?: number): number {
  let size = entry.Time ? 14 : 0;
  if (entry.Source) size += utf8Bytes(entry.Source);
  if (entry.DetailType) size += utf8Bytes(entry.DetailType);
  if (detailBytes !== undefined) size += detailBytes;
  else if (entry.Detail) size += utf8Bytes(entry.Detail);
  for (const resource of entry.Resources ?? []) size += utf8Bytes(resource);
  return size;
}
