import { describe, expect, it } from 'vitest';
import { readEveryPage } from '../../shared/admin/console/pages.js';
import { readEveryStream } from '../../shared/admin/console/streams-pages.js';

/** An API that answers `pages` in turn, keeping the paths asked. */
function pagedApi(pages: Record<string, unknown>[]) {
  const asked: string[] = [];
  return {
    asked,
    get: async (path: string) => {
      asked.push(path);
      return pages[asked.length - 1]!;
    },
  };
}

describe('the console reading a listing answered in pages', () => {
  it('follows nextCursor to the last page of the connections, with the query of every page', async () => {
    const api = pagedApi([
      { connections: [{ id: 'a' }, { id: 'b' }], nextCursor: 'c1' },
      { connections: [{ id: 'c' }] },
    ]);
    const read = await readEveryPage(api.get, 'connections', 'connections', { limit: '2' });
    expect(read.items).toEqual([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
    expect(api.asked).toEqual(['connections?limit=2', 'connections?limit=2&cursor=c1']);
  });

  it('keeps the budgets of every page of the streams, one per connection', async () => {
    // Each page of GET /streams carries the budgets of its own streams' connections.
    const api = pagedApi([
      {
        streams: [{ id: 'a:customer', connectionId: 'a' }],
        budgets: [{ connectionId: 'a', requestsInWindow: 1 }],
        nextCursor: 'c1',
      },
      {
        streams: [
          { id: 'a:reservation', connectionId: 'a' },
          { id: 'b:customer', connectionId: 'b' },
        ],
        budgets: [
          { connectionId: 'a', requestsInWindow: 1 },
          { connectionId: 'b', requestsInWindow: 2 },
        ],
      },
    ]);
    const read = await readEveryStream(api.get);
    expect(read.pages).toBe(2);
    expect(read.streams).toHaveLength(3);
    // Before, the first page's budgets alone: connection b's was lost.
    expect(read.budgets?.map((b) => b.connectionId)).toEqual(['a', 'b']);
  });
});
