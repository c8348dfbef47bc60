import { isJsonObject } from '../json-object.ts';
import type { CallOptions, ConnectorCaller } from './client.ts';
import { limitationCount } from './client.ts';
import { ConnectorError } from './errors.ts';
import type { ItemScreen } from './item-screen.ts';
import {
  OPERATIONS,
  type OperationRequest,
  type OperationResponse,
  type PaginatedOperationName,
} from './operations.ts';
import type { SetAsideRecord } from './response.ts';

type ItemsKeyOf<N extends PaginatedOperationName> = (typeof OPERATIONS)[N]['pagination'] extends {
  itemsKey: infer K;
}
  ? K
  : never;

/** The records of a page of operation N (e.g. `Customer[]` for customers/getAll). */
export type PageItems<N extends PaginatedOperationName> = NonNullable<
  OperationResponse<N>[ItemsKeyOf<N> & keyof OperationResponse<N>]
>;

/** One page of a paginated walk. */
export interface Page<N extends PaginatedOperationName> {
  response: OperationResponse<N>;
  items: PageItems<N>;
  /** The response's Cursor: the id of the oldest item of this page (null when it was empty). */
  cursor: string | null;
  /** The Count this page was requested with (a 408 may have halved it). */
  count: number;
  /** True when this is the last page (rule 5: null Cursor or fewer items than Count). */
  last: boolean;
  /** Items the page's screen passed over: the response held `items.length + passedOver + setAside.length`. */
  passedOver: number;
  /** Records that broke their schema and were left out (only with the `setAside` option). */
  setAside: SetAsideRecord[];
  /** The screen that looked at this page's items, when the walk was given `screens`. */
  screen?: ItemScreen;
  /** When its answering request was sent, past any wait (see CallResult.sentAt); absent: unknown. */
  sentAt?: number;
}

/**
 * False when the request leaves its records out of the response: `itemsExtent` names the
 * `Extent` flag that asks for them, and it is not true (an extent not set to true returns
 * nothing of its kind). Pure.
 */
function asksItems(body: Record<string, unknown>, itemsExtent: string | undefined): boolean {
  if (itemsExtent === undefined) return true;
  const extent = body.Extent;
  return isJsonObject(extent) && extent[itemsExtent] === true;
}

/** Options of a paginated walk. */
export interface PaginateOptions extends Omit<CallOptions, 'screen'> {
  /** Makes the screen of each page's request (see ItemScreen); it comes back with the page. */
  screens?: () => ItemScreen;
}

/**
 * Walks a paginated operation page by page, following the contract's rules exactly
 * (connector-api.md, Pagination): the first request carries the given `Limitation.Cursor`
 * (absent: the newest items), each next request the Cursor of the previous response; the walk
 * stops when the response Cursor is null or fewer items than Count come back (items a screen
 * passed over, and records set aside with the `setAside` option, count). A walk whose request
 * leaves the records out (customers/getAll without `Extent.Customers`, resources/getAll without
 * `Extent.Resources` true: a walk by another extent) has no items to count, and ends on the null
 * Cursor alone (rule 4). A Count halved after a 408 is kept for the following pages.
 * @throws ConnectorError (`response`, naming `Cursor`) for a full page whose Cursor the walk
 * already asked with: it names no older item (rule 2), and following it would ask for the same
 * pages for ever.
 */
export async function* paginate<N extends PaginatedOperationName>(
  caller: ConnectorCaller,
  name: N,
  body: OperationRequest<N>,
  options: PaginateOptions = {},
): AsyncGenerator<Page<N>, void, undefined> {
  const pagination: { itemsKey: string; itemsExtent?: string } = OPERATIONS[name].pagination;
  const { itemsKey } = pagination;
  const { screens, ...callOptions } = options;
  let request = body as Record<string, unknown>;
  const asked = new Set<string>();
  for (;;) {
    const askedWith = (request.Limitation as { Cursor?: unknown } | undefined)?.Cursor;
    if (typeof askedWith === 'string') asked.add(askedWith);
    const screen = screens?.();
    const { response, sentBody, passedOver, setAside, sentAt } = await caller.send(
      name,
      request as OperationRequest<N>,
      screen ? { ...callOptions, screen } : callOptions,
    );
    const count = limitationCount(sentBody) ?? 0;
    const raw = (response as Record<string, unknown>)[itemsKey];
    const list: unknown[] = Array.isArray(raw) ? raw : [];
    const items = list as PageItems<N>;
    const cursor = ((response as { Cursor?: string | null }).Cursor ?? null) as string | null;
    // A page whose records were not asked for (their Extent flag not true: the walk is by
    // another extent) holds none to count, however many the page had: only the Cursor ends it.
    const counted = asksItems(sentBody, pagination.itemsExtent);
    const last = cursor === null || (counted && list.length + passedOver + setAside.length < count);
    if (!last && asked.has(cursor)) {
      throw new ConnectorError(
        `${name}: the response breaks the contract at Cursor: ${cursor} was already asked with in this walk, so it names no older items (connector-api.md, Pagination 2 and 4)`,
        { category: 'response', operation: name, details: { path: 'Cursor' } },
      );
    }
    yield {
      response,
      items,
      cursor,
      count,
      last,
      passedOver,
      setAside,
      sentAt,
      ...(screen ? { screen } : {}),
    };
    if (last) return;
    request = { ...sentBody, Limitation: { ...(sentBody.Limitation as object), Cursor: cursor } };
  }
}
