import { toStoredEvent } from './dynamodb-items.ts';
import { collectListed } from './dynamodb-lists.ts';
import type { WebhookTable } from './dynamodb-table-access.ts';
import type { EventListPosition, EventListQuery, EventPage, StoredEvent } from './store.ts';

/**
 * The most event list entries one round of {@link readEventPage} reads: a round after events
 * passed over (listed, not stored yet) reads as many more as were passed.
 */
const LIST_ROUND_MAX_ENTRIES = 1000;

/**
 * One page of stored events, newest first, from the `EVENTS` list items and the event items
 * (DynamoDbWebhookStore.listEvents; the contract is WebhookStore.listEvents's). Throws when the
 * table fails.
 */
export async function readEventPage(
  table: WebhookTable,
  query: EventListQuery,
): Promise<EventPage> {
  const events: StoredEvent[] = [];
  const listedUnstored: number[] = [];
  /** Ids the page took or passed over: an id listed twice counts once (collectListed's rule). */
  const seen = new Set<string>();
  const page = (next?: EventListPosition): EventPage => ({
    events,
    ...(next ? { next } : {}),
    ...(listedUnstored.length > 0 ? { listedUnstored } : {}),
  });
  let after = query.after;
  // A fan-out lists its new events before it stores them (after its sends), so a listed event
  // may not be readable yet: it is passed over and the page filled from older entries, as the
  // memory store's list of stored events does (before, such a page came back short, even
  // empty with a cursor). A round reads the entries the page still lacks plus as many as were
  // passed over so far, so a run of such events (a fan-out lists hundreds) costs a few rounds,
  // not a Query and a BatchGetItem each; entries read past the page's last event are left to
  // the next page, whose cursor is that event.
  for (;;) {
    const wanted = query.limit - events.length;
    const asked = Math.max(
      wanted,
      Math.min(wanted + listedUnstored.length, LIST_ROUND_MAX_ENTRIES),
    );
    const listed = await collectListed(
      table,
      { pk: 'EVENTS', kind: 'events' },
      { limit: asked, type: query.type, ...(after ? { after } : {}) },
    );
    const items = await table.batchGetItems(
      listed.map(({ id }) => ({ pk: `EVENT#${id}`, sk: 'EVENT' })),
    );
    const read = new Map(items.map(toStoredEvent).map((event) => [event.id, event]));
    for (const entry of listed) {
      // Listed again further down (two batches fanned it out at once): read in an earlier round.
      if (seen.has(entry.id)) continue;
      seen.add(entry.id);
      const event = read.get(entry.id);
      if (!event) {
        if (entry.at !== undefined) listedUnstored.push(entry.at);
        continue;
      }
      events.push(event);
      if (events.length === query.limit) {
        // Items written before entries carried their time predate positions: no page follows.
        return page(entry.at === undefined ? undefined : { at: entry.at, id: entry.id });
      }
    }
    const last = listed.at(-1);
    // The list ends here (or its items predate positions): no page follows.
    if (last?.at === undefined || listed.length < asked) return page();
    after = { at: last.at, id: last.id };
  }
}
