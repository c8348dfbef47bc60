import { z } from 'zod';
import { fanOutDeliveryId } from './delivered-at-once.ts';
import { iso, type WebhookTable } from './dynamodb-table-access.ts';
import { LATEST_LISTED_AT_MS } from './event-cursor.ts';
import { type Delivery, type EventListPosition, isAfterPosition } from './store.ts';

/** Entries per list item: an item stays far below DynamoDB's 400 KB item limit. */
export const LIST_ITEM_MAX_ENTRIES = 100;

/** Items read per Query page while paging through a list. */
const LIST_PAGE_ITEMS = 25;

/** An event in the list: `at` is when it was listed (absent in items written before paging). */
const EventEntrySchema = z.object({ id: z.string(), type: z.string(), at: z.number().optional() });

/**
 * How far an item's sort-key time may lie after its entries' `at`: a list item's key takes the
 * newest of its entries, which one fan-out lists at one instant.
 */
const LIST_ITEM_SPAN_MS = 60_000;

/**
 * An item of the event list: many events (`entries`, written by `indexEvents`), or one
 * event's summary in `doc` (the layout before lists were batched).
 */
const EventListItemSchema = z.union([
  z.object({ entries: z.array(EventEntrySchema) }),
  z.object({ doc: EventEntrySchema }),
]);

/**
 * An item of a subscription's delivery list (pk `SUB#<subscriptionId>`): the fan-out deliveries
 * of many events by event id (`events`: each delivery's id follows from its event and the
 * subscription, and a delivery kept on its event's item is found there), other deliveries by
 * id (`ids`), or one id at the end of its sort key.
 */
const DeliveryListItemSchema = z.object({
  pk: z.string(),
  sk: z.string(),
  ids: z.array(z.string()).optional(),
  events: z.array(z.string()).optional(),
});

/** One entry of a list: an event, or a delivery with its event's id when the list has it. */
export interface ListedEntry {
  id: string;
  eventId?: string;
  /** When it was listed (events). */
  at?: number;
}

/** Splits `items` into chunks of at most {@link LIST_ITEM_MAX_ENTRIES}. */
export function chunk<T>(items: readonly T[]): T[][] {
  const chunks: T[][] = [];
  for (let index = 0; index < items.length; index += LIST_ITEM_MAX_ENTRIES) {
    chunks.push(items.slice(index, index + LIST_ITEM_MAX_ENTRIES));
  }
  return chunks;
}

/** The sort key of a list item written at `atMs`: time first (lists are newest first), then an id for uniqueness. */
export function listSortKey(prefix: string, atMs: number, firstId: string): string {
  return `${prefix}${iso(atMs)}#${firstId}`;
}

/**
 * Event entries of one list item with the time each was listed (the item's key time when the
 * entry has none), newest first within it (by time, then id descending, as the memory store
 * sorts ties).
 */
function eventEntries(item: Record<string, unknown>): { id: string; type: string; at: number }[] {
  const parsed = EventListItemSchema.safeParse(item);
  if (!parsed.success) return [];
  const entries = 'entries' in parsed.data ? parsed.data.entries : [parsed.data.doc];
  const itemAt = Date.parse(String(item.sk).split('#')[0] ?? '');
  return entries
    .map((entry) => ({ id: entry.id, type: entry.type, at: entry.at ?? itemAt }))
    .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1));
}

/** Delivery entries of one list item. */
function deliveryEntries(item: Record<string, unknown>): ListedEntry[] {
  const parsed = DeliveryListItemSchema.safeParse(item);
  if (!parsed.success) return [];
  const { pk, ids, events, sk } = parsed.data;
  if (!ids && !events) return [{ id: sk.split('#').at(-1) ?? '' }];
  const subscriptionId = pk.slice('SUB#'.length);
  return [
    ...(events ?? []).map((eventId) => ({
      id: fanOutDeliveryId(eventId, subscriptionId),
      eventId,
    })),
    ...(ids ?? []).map((id) => ({ id })),
  ];
}

/** The time in an event list item's sort key (`<ISO time>#<first id>`): the newest of its entries' `at`. */
function itemKeyTime(item: Record<string, unknown>): number {
  return Date.parse(String(item.sk).split('#')[0] ?? '');
}

/** Newest first: by `at`, then id descending (the order cursors follow: isAfterPosition). */
function byListPosition(a: ListedEntry, b: ListedEntry): number {
  return (b.at ?? 0) - (a.at ?? 0) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * Reads a list partition newest first and collects distinct entries until `limit` (all when
 * `limit` is undefined). An id listed twice (a repeated fan-out) counts once, where it
 * was listed last. Events come in list order (time, then id descending): fan-outs listed in
 * the same millisecond are items of their own whose ids interleave, so the list is read on
 * until an item keyed before the `limit`-th entry's time (it and every later item hold only
 * older entries), and the entries are sorted before they are cut.
 */
export async function collectListed(
  table: WebhookTable,
  list: { pk: string; prefix?: string; kind: 'events' | 'deliveries' },
  options: { limit?: number; type?: string; after?: EventListPosition },
): Promise<ListedEntry[]> {
  const ids: ListedEntry[] = [];
  const seen = new Set<string>();
  const { after, limit } = options;
  const events = list.kind === 'events';
  // Items keyed later than the position (plus an item's span) hold nothing after it; a key past
  // year 9999 would not sort as text, so near that end the list is read from its newest item.
  const belowMs = after ? after.at + LIST_ITEM_SPAN_MS : undefined;
  const below = belowMs !== undefined && belowMs <= LATEST_LISTED_AT_MS ? iso(belowMs) : undefined;
  /** True once no item still unread can hold an entry among the first `limit`. */
  const complete = (lastItem: Record<string, unknown> | undefined): boolean => {
    if (limit === undefined || ids.length < limit) return false;
    if (!events) return true;
    ids.sort(byListPosition);
    return lastItem !== undefined && itemKeyTime(lastItem) < (ids[limit - 1]!.at ?? 0);
  };
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.queryPage({
      pk: list.pk,
      prefix: list.prefix,
      ...(below !== undefined ? { below } : {}),
      newestFirst: true,
      limit: LIST_PAGE_ITEMS,
      start,
    });
    for (const item of page.Items ?? []) {
      const found: ListedEntry[] = events
        ? eventEntries(item)
            .filter((entry) => options.type === undefined || entry.type === options.type)
            .filter((entry) => !after || isAfterPosition(entry, after))
            .map((entry) => ({ id: entry.id, at: entry.at }))
        : deliveryEntries(item);
      for (const entry of found) {
        if (entry.id === '' || seen.has(entry.id)) continue;
        seen.add(entry.id);
        ids.push(entry);
      }
    }
    start = page.LastEvaluatedKey;
    if (complete(page.Items?.at(-1))) break;
  } while (start);
  if (events) ids.sort(byListPosition);
  return limit === undefined ? ids : ids.slice(0, limit);
}

/** Deliveries newest first (ties by id, descending), at most `limit`. */
export function newestFirst(deliveries: Delivery[], limit: number): Delivery[] {
  return deliveries
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
    .slice(0, limit);
}
