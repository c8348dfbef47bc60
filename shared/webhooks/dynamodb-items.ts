import { z } from 'zod';
import { parseOrThrow } from '../errors.ts';
import { withMembers } from '../with-members.ts';
import { expandDeliveredAtOnce, fanOutDeliveryId } from './delivered-at-once.ts';
import { compressEventBody, decompressEventBody } from './event-body-codec.ts';
import {
  type Attempt,
  AttemptSchema,
  type DeliveredAtOnce,
  type Delivery,
  type DeliveryRecord,
  type StoredEvent,
  type StoredEventRecord,
  StoredEventSchema,
} from './store.ts';

/*
 * How the webhook store's records become table items and back (keys: dynamodb-webhook-keys.ts).
 * Sizes matter in AWS: a write unit is 1 KB, so an event item keeps its body compressed and its
 * id only in the key. Locally (dynalite), where kilobytes cost nothing, the body is kept as text.
 */

/**
 * A delivery kept on its event's item, as a list (names cost bytes in every item, and an item
 * under 1 KB costs one write unit): `[subscriptionId, attempt start - event stored, latencyMs,
 * status]`; its id is the fan-out delivery id of the event and subscription.
 */
const DeliveredAtOnceEntrySchema = z.tuple([z.string(), z.number(), z.number(), z.number()]);

/**
 * An event item: its body compressed (`body`) or as text (`text`); older items hold the text in
 * `doc`.
 */
const EventItemSchema = z.object({
  pk: z.string().startsWith('EVENT#'),
  doc: z.looseObject({ type: z.string(), storedAt: z.number() }),
  body: z.instanceof(Uint8Array).optional(),
  text: z.string().optional(),
  /** Ids of the fan-out deliveries with an item of their own. */
  dlv: z.array(z.string()).optional(),
  /** Fan-out deliveries that succeeded at their first attempt. */
  ok: z.array(DeliveredAtOnceEntrySchema).optional(),
});

/** A delivery's folded attempt log. */
const AttemptLogSchema = z.array(AttemptSchema);

/**
 * The item of a stored event: summary in `doc`, the body (compressed in `body`, or as it is in
 * `text` when `compressBody` is false), and what its fan-out recorded: the deliveries that
 * succeeded at once (`ok`) and the ids of the others (`dlv`).
 */
export function eventItem(
  event: StoredEvent,
  fanOut: { deliveredAtOnce?: readonly DeliveredAtOnce[]; deliveryIds?: readonly string[] },
  ttl: number,
  compressBody = true,
): Record<string, unknown> {
  const { deliveredAtOnce = [], deliveryIds = [] } = fanOut;
  return {
    pk: `EVENT#${event.id}`,
    sk: 'EVENT',
    doc: { type: event.type, storedAt: event.storedAt },
    body: compressBody ? compressEventBody(event.body) : undefined,
    text: compressBody ? undefined : event.body,
    dlv: deliveryIds.length > 0 ? [...deliveryIds] : undefined,
    ok:
      deliveredAtOnce.length > 0
        ? deliveredAtOnce.map((d) => [
            d.subscriptionId,
            d.at - event.storedAt,
            d.latencyMs,
            d.status,
          ])
        : undefined,
    ttl,
  };
}

/** A stored event with the deliveries folded into its item. */
export function toStoredEventRecord(item: Record<string, unknown>): StoredEventRecord {
  const parsed = parseOrThrow(EventItemSchema, item, 'stored event');
  const event = storedEventOf(parsed);
  return { event, deliveredAtOnce: atOnceEntries(event.id, event.storedAt, parsed.ok ?? []) };
}

/** What an event item tells of the deliveries kept on it: no body needed. */
const DeliveredAtOnceItemSchema = EventItemSchema.pick({ pk: true, doc: true, ok: true });

/**
 * The attributes {@link deliveredAtOnceRecords} reads, as a projection: an event's body (most of
 * its item) stays behind.
 */
export const DELIVERED_AT_ONCE_PROJECTION = {
  expression: '#pk, #sk, #doc, #ok',
  names: { '#pk': 'pk', '#sk': 'sk', '#doc': 'doc', '#ok': 'ok' },
};

/**
 * The deliveries (with their one attempt) kept compactly on an event's item, of the subscriptions
 * `of` only when given. The body is neither read nor decompressed: the item may come without it
 * ({@link DELIVERED_AT_ONCE_PROJECTION}).
 */
export function deliveredAtOnceRecords(
  item: Record<string, unknown>,
  of?: ReadonlySet<string>,
): DeliveryRecord[] {
  const parsed = parseOrThrow(DeliveredAtOnceItemSchema, item, 'stored event');
  const eventId = parsed.pk.slice('EVENT#'.length);
  const { storedAt } = parsed.doc;
  const ok = (parsed.ok ?? []).filter(([subscriptionId]) => !of || of.has(subscriptionId));
  return atOnceEntries(eventId, storedAt, ok).map((entry) =>
    expandDeliveredAtOnce(eventId, storedAt, entry),
  );
}

/** The `ok` entries of an event's item as deliveries kept compactly. */
function atOnceEntries(
  eventId: string,
  storedAt: number,
  ok: readonly z.infer<typeof DeliveredAtOnceEntrySchema>[],
): DeliveredAtOnce[] {
  return ok.map(([subscriptionId, offsetMs, latencyMs, status]) => ({
    id: fanOutDeliveryId(eventId, subscriptionId),
    subscriptionId,
    at: storedAt + offsetMs,
    latencyMs,
    status,
  }));
}

/** A stored event from its item: the body decompressed, or its text (in older items, in `doc`). */
export function toStoredEvent(item: Record<string, unknown>): StoredEvent {
  return storedEventOf(parseOrThrow(EventItemSchema, item, 'stored event'));
}

/** {@link toStoredEvent} of an item already parsed. */
function storedEventOf(parsed: z.infer<typeof EventItemSchema>): StoredEvent {
  const body = parsed.body ? decompressEventBody(parsed.body) : (parsed.text ?? parsed.doc.body);
  return parseOrThrow(
    StoredEventSchema,
    withMembers(parsed.doc, { id: parsed.pk.slice('EVENT#'.length), body }),
    'stored event',
  );
}

/**
 * Delivery ids of an event partition: those named on the event item and the `DLV#` index items.
 * With `fanOutOf`, of the event item's only that subscription's: the item names the fan-out
 * deliveries with an item of their own, whose ids are their subscriptions' fan-out ids
 * (fanOutDeliveryId), while a `DLV#` item (a replay, a redelivery) may be any subscription's.
 */
export function deliveryIdsOfEventItems(
  items: readonly Record<string, unknown>[],
  fanOutOf?: string,
): string[] {
  const ids = new Set<string>();
  for (const item of items) {
    if (item.sk === 'EVENT') {
      const dlv = EventItemSchema.shape.dlv.parse(item.dlv) ?? [];
      const kept =
        fanOutOf &&
        fanOutDeliveryId(EventItemSchema.shape.pk.parse(item.pk).slice('EVENT#'.length), fanOutOf);
      for (const id of dlv) if (!kept || id === kept) ids.add(id);
    } else if (String(item.sk).startsWith('DLV#')) {
      ids.add(String(item.sk).slice('DLV#'.length));
    }
  }
  return [...ids];
}

/** The folded log of a delivery item (empty when it has none). */
export function attemptLogOf(item: Record<string, unknown> | undefined): Attempt[] {
  return parseOrThrow(AttemptLogSchema, item?.log ?? [], 'stored attempt log');
}

/** The whole attempt log of a delivery partition: folded entries and `ATTEMPT#` lines, by number. */
export function attemptsOfDeliveryItems(items: readonly Record<string, unknown>[]): Attempt[] {
  const byNumber = new Map<number, Attempt>();
  for (const item of items) {
    if (String(item.sk).startsWith('ATTEMPT#')) {
      const attempt = parseOrThrow(AttemptSchema, item.doc, 'stored attempt');
      byNumber.set(attempt.attempt, attempt);
    }
  }
  for (const attempt of attemptLogOf(items.find((item) => item.sk === 'DELIVERY'))) {
    byNumber.set(attempt.attempt, attempt);
  }
  return [...byNumber.values()].sort((a, b) => a.attempt - b.attempt);
}

/** Deliveries grouped by subscription, in the order given. */
export function bySubscription(deliveries: readonly Delivery[]): Map<string, Delivery[]> {
  const groups = new Map<string, Delivery[]>();
  for (const delivery of deliveries) {
    const group = groups.get(delivery.subscriptionId);
    if (group) group.push(delivery);
    else groups.set(delivery.subscriptionId, [delivery]);
  }
  return groups;
}
