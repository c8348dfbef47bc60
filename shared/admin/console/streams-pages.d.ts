/** Types of streams-pages.js (a browser module of the console, also tested under Node). */

/** How often the overview reads the streams again when they take more than one answer. */
export const PAGED_STREAMS_POLL_MS: number;

/** A stream as `GET /streams` shows it (the fields the console reads by name, and the rest). */
export type ListedStream = Record<string, unknown> & {
  id: string;
  connectionId: string;
  entityType: string;
};

/**
 * Every stream `GET /streams` lists (of one connection when `connectionId` is given), following
 * `nextCursor` to the last page, in order; the budgets of the streams' connections, one each;
 * how many pages it took.
 */
export function readEveryStream(
  get: (path: string) => Promise<unknown>,
  connectionId?: string,
): Promise<{ streams: ListedStream[]; budgets?: Record<string, unknown>[]; pages: number }>;

/**
 * Whether the overview reads the streams at this refresh: always when it has not yet or the last
 * read took one page; once {@link PAGED_STREAMS_POLL_MS} passed when it took more.
 */
export function streamsReadDue(
  last: { pages: number; readAtMs: number } | undefined,
  nowMs: number,
): boolean;
