/**
 * Lists of the admin API answered in pages (`GET /streams`, `/subscriptions/health`,
 * `/connections`): each page names the next with `nextCursor`.
 */

/**
 * Every page of a listing, following `nextCursor` to the last: `path` with `search` (and the
 * cursor) for each page, the items under `key` of each, in the API's order, each page's whole
 * answer (for what else it carries), and how many pages it took. A page with no item would lead
 * nowhere: the reading ends there.
 * @param {(path: string) => Promise<any>} get reads one path of the API, e.g. `(path) => api('GET', path)`
 * @param {string} path e.g. `streams`
 * @param {string} key the answer's field holding the items, e.g. `streams`
 * @param {Record<string, string>} [search] query parameters of every page
 * @returns {Promise<{ items: any[], answers: any[] }>}
 * @example await readEveryPage((path) => api('GET', path), 'connections', 'connections') // { items: [...], answers: [{ connections: [...] }] }
 */
export async function readEveryPage(get, path, key, search = {}) {
  /** @type {any[]} */
  const items = [];
  /** @type {any[]} */
  const answers = [];
  /** @type {string | undefined} */
  let cursor;
  do {
    const parts = Object.entries(search).map(
      ([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
    );
    if (cursor) parts.push(`cursor=${encodeURIComponent(cursor)}`);
    const text = parts.join('&');
    const answer = await get(text ? `${path}?${text}` : path);
    answers.push(answer);
    items.push(...answer[key]);
    cursor = answer[key].length > 0 ? answer.nextCursor : undefined;
  } while (cursor);
  return { items, answers };
}
