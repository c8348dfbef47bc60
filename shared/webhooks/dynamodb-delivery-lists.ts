import { mapWithConcurrency } from '../concurrency.ts';
import { parseOrThrow } from '../errors.ts';
import {
  attemptLogOf,
  DELIVERED_AT_ONCE_PROJECTION,
  deliveredAtOnceRecords,
  deliveryIdsOfEventItems,
} from './dynamodb-items.ts';
import { collectListed, type ListedEntry, newestFirst } from './dynamodb-lists.ts';
import type { WebhookTable } from './dynamodb-table-access.ts';
import {
  type Attempt,
  type Delivery,
  type DeliveryQuery,
  type DeliveryRecord,
  DeliverySchema,
} from './store.ts';

/*
 * Finding deliveries through the lists that name them (a subscription's, an event's partition)
 * and reading their records: their own items, or the items of their events for those kept
 * compactly there (key design: dynamodb-webhook-keys.ts).
 */

/** Subscriptions whose delivery lists {@link findDeliveriesOfSubscriptions} reads at once: one Query each. */
export const LIST_READS_IN_FLIGHT = 16;

/**
 * A delivery with an item of its own, and the attempt log folded into that item (`undefined`
 * when the item holds none: created without attempts, and not attempted since).
 */
export interface OwnDelivery {
  delivery: Delivery;
  folded: Attempt[] | undefined;
}

/** Found deliveries: those with an item of their own, and those kept on their event's item. */
export interface FoundDeliveries {
  own: OwnDelivery[];
  atOnce: DeliveryRecord[];
}

/** The list of a subscription's deliveries (newest first). */
export function deliveryListOf(subscriptionId: string) {
  return { pk: `SUB#${subscriptionId}`, prefix: 'DLV#', kind: 'deliveries' } as const;
}

/**
 * The deliveries a query matches: those with an item of their own, and those kept on their
 * event's item. With an event, they are read from its partition, which names every delivery of
 * the event (kept there or listed by id), and matched to the subscription when one is given:
 * the subscription's own list would be read whole for one event (every delivery it had in the
 * retention, not the few of that event). By subscription alone, from its list (newest first,
 * naming each delivery's event); its newest listed deliveries may have no record yet (in
 * flight: an outcome is recorded after its request), so the list is read further until `limit`
 * deliveries are found or it ends.
 */
export async function findDeliveries(
  table: WebhookTable,
  query: DeliveryQuery,
): Promise<FoundDeliveries> {
  const { subscriptionId, eventId } = query;
  if (eventId !== undefined) {
    return matching(await findEventDeliveries(table, eventId, subscriptionId), query);
  }
  if (subscriptionId === undefined) return { own: [], atOnce: [] };
  return readListUntilFilled(table, { subscriptionId, limit: query.limit }, query.limit);
}

/**
 * The pending deliveries among the newest `limit` entries of a subscription's list (see
 * WebhookStore.listPendingDeliveries): the items of the deliveries it names, by id, and not its
 * events' items. A fan-out delivery without an item of its own was kept on its event's item,
 * done at once (or is not written yet: its event's message is still queued).
 */
export async function findPendingDeliveries(
  table: WebhookTable,
  subscriptionId: string,
  limit: number,
): Promise<Delivery[]> {
  const listed = await collectListed(table, deliveryListOf(subscriptionId), { limit });
  const { own } = await resolveListed(table, listed, false);
  return newestFirst(
    own.map((o) => o.delivery).filter((delivery) => delivery.status === 'pending'),
    limit,
  );
}

/**
 * The deliveries of event `eventId` (with `subscriptionId`, that subscription's and those the
 * partition lists of any: replays, redeliveries): its partition's Query, and the items of the
 * deliveries it lists by id.
 */
async function findEventDeliveries(
  table: WebhookTable,
  eventId: string,
  subscriptionId: string | undefined,
): Promise<FoundDeliveries> {
  const items = await table.query(`EVENT#${eventId}`, {});
  const stored = items.find((item) => item.sk === 'EVENT');
  const listed = deliveryIdsOfEventItems(items, subscriptionId).map((id) => ({ id }));
  const { own } = await resolveListed(table, listed, false);
  const of = subscriptionId === undefined ? undefined : new Set([subscriptionId]);
  return { own, atOnce: stored ? deliveredAtOnceRecords(stored, of) : [] };
}

/**
 * The newest `query.limit` deliveries of a subscription, reading its newest `want` listed entries
 * first and four times as many each time too few of them had a record, until the list ends.
 */
export async function readListUntilFilled(
  table: WebhookTable,
  query: { subscriptionId: string; limit: number },
  want: number,
): Promise<FoundDeliveries> {
  for (let size = want; ; size *= 4) {
    const listed = await collectListed(table, deliveryListOf(query.subscriptionId), {
      limit: size,
    });
    // Of the deliveries kept on their events' items, the subscription's alone: an event's item
    // holds one for each subscription it went to at once, and each costs a hash to expand.
    const of = new Set([query.subscriptionId]);
    const found = matching(await resolveListed(table, listed, true, of), query);
    if (found.own.length + found.atOnce.length >= query.limit || listed.length < size) {
      return found;
    }
  }
}

/**
 * The records of listed deliveries: with `fromEvents`, the fan-out deliveries kept on the items
 * of their events first (read without their bodies; of the subscriptions `of` only, when given),
 * then the own items of the others (most fan-out deliveries succeed at once: one key each, not
 * two). Entries of many lists may be resolved at once. A fan-out delivery two batches of one
 * event both recorded (at-least-once), one at once and one with an item of its own, is the one
 * the event's item keeps.
 */
export async function resolveListed(
  table: WebhookTable,
  listed: readonly ListedEntry[],
  fromEvents: boolean,
  of?: ReadonlySet<string>,
): Promise<FoundDeliveries> {
  const atOnce = fromEvents ? await readDeliveredAtOnce(table, listed, of) : [];
  const kept = new Set(atOnce.map((record) => record.delivery.id));
  const items = await table.batchGetItems(
    listed
      .filter(({ id }) => !kept.has(id))
      .map(({ id }) => ({ pk: `DELIVERY#${id}`, sk: 'DELIVERY' })),
  );
  const own = items.map((item) => ({
    delivery: parseOrThrow(DeliverySchema, item.doc, 'stored delivery'),
    folded: item.log === undefined ? undefined : attemptLogOf(item),
  }));
  return { own, atOnce };
}

/** The listed fan-out deliveries kept on their events' items (see {@link resolveListed}). */
async function readDeliveredAtOnce(
  table: WebhookTable,
  listed: readonly ListedEntry[],
  of: ReadonlySet<string> | undefined,
): Promise<DeliveryRecord[]> {
  const eventIds = new Set(listed.flatMap((entry) => (entry.eventId ? [entry.eventId] : [])));
  if (eventIds.size === 0) return [];
  const listedIds = new Set(listed.map((entry) => entry.id));
  const events = await table.batchGetItems(
    [...eventIds].map((id) => ({ pk: `EVENT#${id}`, sk: 'EVENT' })),
    DELIVERED_AT_ONCE_PROJECTION,
  );
  return events
    .flatMap((item) => deliveredAtOnceRecords(item, of))
    .filter((record) => listedIds.has(record.delivery.id));
}

/** Only the deliveries of the query's event and subscription. */
export function matching(
  found: FoundDeliveries,
  query: { subscriptionId?: string; eventId?: string },
): FoundDeliveries {
  const matches = (d: Delivery) =>
    (query.eventId === undefined || d.eventId === query.eventId) &&
    (query.subscriptionId === undefined || d.subscriptionId === query.subscriptionId);
  return {
    own: found.own.filter((o) => matches(o.delivery)),
    atOnce: found.atOnce.filter((r) => matches(r.delivery)),
  };
}

/**
 * The newest `limit` deliveries of each subscription, as {@link findDeliveries} finds them for
 * one, read together: a Query of each list (more when its newest entries have no record yet),
 * and the items of every list's deliveries and events in shared BatchGetItem requests (100 keys
 * each) rather than a few per subscription.
 */
export async function findDeliveriesOfSubscriptions(
  table: WebhookTable,
  subscriptionIds: readonly string[],
  limit: number,
): Promise<Map<string, FoundDeliveries>> {
  // Each id once: a key twice in one BatchGetItem is refused.
  const ids = [...new Set(subscriptionIds)];
  const lists = await mapWithConcurrency(ids, LIST_READS_IN_FLIGHT, (id) =>
    collectListed(table, deliveryListOf(id), { limit }),
  );
  const resolved = await resolveListed(table, lists.flat(), true, new Set(ids));
  const bySubscription = new Map<string, FoundDeliveries>(
    ids.map((id) => [id, { own: [], atOnce: [] }]),
  );
  for (const own of resolved.own) bySubscription.get(own.delivery.subscriptionId)?.own.push(own);
  for (const record of resolved.atOnce) {
    bySubscription.get(record.delivery.subscriptionId)?.atOnce.push(record);
  }
  // A list whose newest entries have no record yet (in flight) is read further on its own.
  const short = ids.filter((id, index) => {
    const found = bySubscription.get(id)!;
    return found.own.length + found.atOnce.length < limit && lists[index]!.length >= limit;
  });
  await mapWithConcurrency(short, LIST_READS_IN_FLIGHT, async (subscriptionId) => {
    bySubscription.set(
      subscriptionId,
      await readListUntilFilled(table, { subscriptionId, limit }, limit * 4),
    );
  });
  return bySubscription;
}

/**
 * The newest `limit` of the found deliveries with their attempt logs: the log folded into a
 * delivery's item, or where it holds none its attempt lines, read with `readLines` (a Query
 * each: deliveries created without attempts and not attempted since, and lines written before
 * logs were folded). A delivery found both ways is the one kept on its event.
 */
export function newestRecords(
  found: FoundDeliveries,
  limit: number,
  readLines: (deliveryId: string) => Promise<Attempt[]>,
): Promise<DeliveryRecord[]> {
  const byId = new Map<string, { delivery: Delivery; attempts: Attempt[] | undefined }>([
    ...found.own.map((o) => [o.delivery.id, { delivery: o.delivery, attempts: o.folded }] as const),
    ...found.atOnce.map((record) => [record.delivery.id, record] as const),
  ]);
  const newest = newestFirst(
    [...byId.values()].map((record) => record.delivery),
    limit,
  );
  return Promise.all(
    newest.map(async (delivery) => ({
      delivery,
      attempts: byId.get(delivery.id)!.attempts ?? (await readLines(delivery.id)),
    })),
  );
}
