/**
 * The subscriptions' health of `GET /subscriptions/health`, page after page: past 200
 * subscriptions it answers in pages, each naming the next with `nextCursor`.
 */

import { readEveryPage } from './pages.js';

/**
 * How often the subscriptions page reads the health again when it takes more than one answer:
 * each subscription's costs reads of its newest 50 deliveries, and thousands of them every
 * 10 seconds would be most of what the store serves.
 */
export const PAGED_HEALTH_POLL_MS = 60_000;

/**
 * Every subscription's health, following `nextCursor` to the last page, in the API's order
 * (oldest subscription first), and how many pages it took.
 * @param {(path: string) => Promise<any>} get reads one path of the API, e.g. `(path) => api('GET', path)`
 * @returns {Promise<{ health: any[], pages: number }>}
 * @example await readEveryHealth((path) => api('GET', path)) // { health: [...], pages: 1 }
 */
export async function readEveryHealth(get) {
  const { items, answers } = await readEveryPage(get, 'subscriptions/health', 'health');
  return { health: items, pages: answers.length };
}

/**
 * Whether the subscriptions page reads the health at this refresh: always when it has not yet or
 * the last read took one page; once {@link PAGED_HEALTH_POLL_MS} passed when it took more. Pure.
 * @param {{ pages: number, readAtMs: number } | undefined} last
 * @param {number} nowMs
 * @returns {boolean}
 * @example healthReadDue({ pages: 3, readAtMs: 0 }, 10_000) // false
 */
export function healthReadDue(last, nowMs) {
  return last === undefined || last.pages <= 1 || nowMs - last.readAtMs >= PAGED_HEALTH_POLL_MS;
}
