/**
 * The streams of `GET /streams`, page after page: a deployment of thousands of streams answers
 * them in pages (4,000 at most each in AWS), each naming the next with `nextCursor`.
 */

import { readEveryPage } from './pages.js';

/**
 * How often the overview reads the streams again when they take more than one answer: every
 * page at each 5-second refresh would be tens of requests a minute reading every stream state.
 */
export const PAGED_STREAMS_POLL_MS = 60_000;

/**
 * Every stream `GET /streams` lists (of one connection when `connectionId` is given), following
 * `nextCursor` to the last page, in the API's order (by id); the connector budgets of the
 * streams' connections, one each (each page carries those of its own streams); and how many
 * pages it took.
 * @param {(path: string) => Promise<any>} get reads one path of the API, e.g. `(path) => api('GET', path)`
 * @param {string} [connectionId]
 * @returns {Promise<{ streams: any[], budgets?: any[], pages: number }>}
 * @example await readEveryStream((path) => api('GET', path)) // { streams: [...], pages: 1 }
 */
export async function readEveryStream(get, connectionId = '') {
  const { items, answers } = await readEveryPage(
    get,
    'streams',
    'streams',
    connectionId ? { connectionId } : {},
  );
  /** @type {Map<string, any> | undefined} */
  let budgets;
  for (const answer of answers) {
    if (!Array.isArray(answer.budgets)) continue;
    budgets ??= new Map();
    for (const budget of answer.budgets)
      if (!budgets.has(budget.connectionId)) budgets.set(budget.connectionId, budget);
  }
  return {
    streams: items,
    ...(budgets ? { budgets: [...budgets.values()] } : {}),
    pages: answers.length,
  };
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
