import type {
  EventListPosition,
  StoredEvent,
  WebhookStore,
} from '../../../shared/webhooks/store.ts';

/** A `customer.updated` event stored (or listed) at `storedAt`, its body naming its id. */
export function listedEvent(id: string, storedAt: number): StoredEvent {
  return { id, type: 'customer.updated', storedAt, body: `{"id":"${id}"}` };
}

/** The ids of each page of the event list, `limit` a page, following `next` for `maxPages` at most. */
export async function eventListPages(
  store: Pick<WebhookStore, 'listEvents'>,
  limit: number,
  maxPages: number,
): Promise<string[][]> {
  const pages: string[][] = [];
  let after: EventListPosition | undefined;
  do {
    const page = await store.listEvents({ limit, ...(after ? { after } : {}) });
    pages.push(page.events.map((e) => e.id));
    after = page.next;
  } while (after && pages.length < maxPages);
  return pages;
}
