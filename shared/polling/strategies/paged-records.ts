import type { EntityRecord } from '../../changes/entity-types.ts';
import type { CallOptions } from '../../connector/client.ts';
import type { ConnectorClient } from '../../connector/connector-client.ts';
import type { ItemScreen } from '../../connector/item-screen.ts';
import type { OperationName, PaginatedOperationName } from '../../connector/operations.ts';
import type { Page, PaginateOptions } from '../../connector/paginate.ts';
import type { SetAsideRecord } from '../../connector/response.ts';
import type { RequestBody } from '../poll-spec.ts';
import type { RecordBudget, RecordGrant } from '../record-budget.ts';

/** A page reduced to what the poller needs. */
export interface RecordPage {
  records: EntityRecord[];
  cursor: string | null;
  count: number;
  last: boolean;
  /** Records a screen passed over: the page held `records.length + passedOver` (+ set aside). */
  passedOver: number;
  /** Records that broke their schema, left out (pages asked with the `setAside` option). */
  setAside?: readonly SetAsideRecord[];
  /** The screen that looked at the page's records, if any. */
  screen?: ItemScreen;
  /** When the page's request was sent, past the waits for the budget or a retry (absent: unknown). */
  sentAt?: number;
}

/**
 * Pages through `operation` with a body built by a poll spec. The body is validated by the
 * client like any other; records are plain JSON objects from here on.
 */
export async function* pageRecords(
  client: ConnectorClient,
  operation: PaginatedOperationName,
  body: RequestBody,
  options: PaginateOptions = {},
): AsyncGenerator<RecordPage, void, undefined> {
  const pages = client.paginate(operation, body as never, options) as AsyncGenerator<
    Page<PaginatedOperationName>
  >;
  for await (const page of pages) {
    yield {
      records: page.items as unknown as EntityRecord[],
      cursor: page.cursor,
      count: page.count,
      last: page.last,
      passedOver: page.passedOver,
      ...(page.setAside.length > 0 ? { setAside: page.setAside } : {}),
      ...(page.screen ? { screen: page.screen } : {}),
      ...(page.sentAt === undefined ? {} : { sentAt: page.sentAt }),
    };
  }
}

/** A page with the claim on the poll's record budget it holds until it is stored. */
export interface BudgetedPage extends RecordPage {
  grant?: RecordGrant;
}

/** Whose pages {@link budgetedPages} claims, and how large they may be. */
export interface PageClaims {
  budget: RecordBudget | undefined;
  streamId: string;
  entityType: string;
  /** The page size asked for (Limitation.Count). */
  requested: number;
  signal?: AbortSignal;
  /** Every claim taken, for the caller to release whatever its pages did not. */
  grants: Set<RecordGrant>;
}

/**
 * The pages of `source`, each claimed from the record budget before it is asked for (what the
 * stream's pages are expected to hold), then resized to what it holds. The caller releases a
 * page's grant once the page is stored; a claim whose page never reached it (a failure, a
 * page read ahead and dropped) stays in `claims.grants` for the caller to release. Without a
 * budget the pages pass as they are.
 */
export async function* budgetedPages(
  source: AsyncIterable<RecordPage>,
  claims: PageClaims,
): AsyncGenerator<BudgetedPage, void, undefined> {
  const { budget, streamId, entityType } = claims;
  if (!budget) {
    yield* source;
    return;
  }
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      const grant = await budget.take(
        budget.estimate(streamId, entityType, claims.requested),
        claims.signal,
      );
      claims.grants.add(grant);
      const result = await iterator.next();
      if (result.done) {
        grant.release();
        return;
      }
      // The next page is expected to arrive as large as this one did (it is parsed whole before a
      // screen passes records over); this one holds only what was not passed over.
      const { records, passedOver, setAside } = result.value;
      budget.observe(streamId, entityType, records.length + passedOver + (setAside?.length ?? 0));
      grant.resize(records.length);
      yield { ...result.value, grant };
      // No claim for a page after the last: the poll ends without waiting on the budget.
      if (result.value.last) return;
    }
  } finally {
    await iterator.return?.();
  }
}

/** Splits ids into chunks of at most `size` (filter arrays hold 1..1000 items). */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/**
 * Calls an unpaginated operation and returns the records under `itemsKey` (an absent or null
 * list is empty), with those that break their schema set aside (left out and returned apart)
 * when `options.setAside` is set. The body is validated by the client like any other.
 */
export async function callForListing(
  client: ConnectorClient,
  operation: OperationName,
  body: RequestBody,
  itemsKey: string,
  options: CallOptions = {},
): Promise<{
  records: EntityRecord[];
  setAside: SetAsideRecord[];
  response: Readonly<Record<string, unknown>>;
  /** When the answering request was sent (see CallResult.sentAt). */
  sentAt: number;
}> {
  const sent = await client.send(operation, body as never, {
    ...options,
    ...(options.setAside ? { itemsKey } : {}),
  });
  const response = sent.response as Record<string, unknown>;
  const items = response[itemsKey];
  return {
    records: Array.isArray(items) ? (items as EntityRecord[]) : [],
    setAside: sent.setAside,
    response,
    sentAt: sent.sentAt,
  };
}
