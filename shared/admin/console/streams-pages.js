/**
 * The streams of `GET /streams`, page after page: a deployment of thousands of streams answers
 * them in pages (4,000 at most each in AWS), each naming the next with `nextCursor`.
 */

/**
 * How often the overview reads the streams again when they take more than one answer: every
 * page at each 5-second refresh would be tens of requests a minute reading every stream state.
 */
export const PAGED_STREAMS_POLL_MS = 60_000;

/**
 * Every stream `GET /streams` lists (of one connection when `connectionId` is given), following
 * `nextCursor` to the last page, in the API's order (by id); the connector budgets of the first
 * page, the only one that carries them; and how many pages it took.
 * @param {(path: string) => Promise<any>} get reads one path of the API, e.g. `(path) => api('GET', path)`
 * @param {string} [connectionId]
 * @returns {Promise<{ streams: any[], budgets?: any[], pages: number }>}
 * @example await readEveryStream((path) => api('GET', path)) // { streams: [...], pages: 1 }
 */
export async function readEveryStream(get, connectionId = '') {
  /** @type {any[]} */
  const streams = [];
  /** @type {any[] | undefined} */
  let budgets;
  let pages = 0;
  /** @type {string | undefined} */
  let cursor;
  do {
    const search = new URLSearchParams();
    if (connectionId) search.set('connectionId', connectionId);
    if (cursor) search.set('cursor', cursor);
    const text = search.toString();
    const page = await get(text ? `streams?${text}` : 'streams');
    pages += 1;
    streams.push(...page.streams);
    budgets ??= page.budgets;
    // A page with no stream would lead nowhere: the listing ends there.
    cursor = page.streams.length > 0 ? page.nextCursor : undefined;
  } while (cursor);
  return { streams, ...(budgets ? { budgets } : {}), pages };
}

/**
 * Whether the overview reads the streams at this refresh: always when it has not yet or the
 * last read took one page; once {@link PAGED_STREAMS_POLL_MS} passed when it took more. Pure.
 * @param {{ pages: number, readAtMs: number } | undefined} last
 * @param {number} nowMs
 * @returns {boolean}
 * @example streamsReadDue({ pages: 4, readAtMs: 0 }, 5000) // false
 */
export function streamsReadDue(last, nowMs) {
  return last === undefined || last.pages <= 1 || nowMs - last.readAtMs >= PAGED_STREAMS_POLL_MS;
}
