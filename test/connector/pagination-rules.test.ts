import { afterEach, describe, expect, it } from 'vitest';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import { type CannedResponse, type JsonServer, startJsonServer } from '../support/json-server.ts';

/**
 * connector-api.md, Pagination rules 1-5, as the client walks them against a scripted server on
 * 127.0.0.1: each test names the rule it holds the paginator to.
 */
const CONFIG = { clientToken: 'ct', accessToken: 'at', client: 'tests', rateLimit: false as const };
const BODY = {
  Limitation: { Count: 3 },
  Extent: { Customers: true },
  CustomerIds: ['6f8b1c84-61b5-4b52-9c29-6a4d3c0e1f11'],
};
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function customer(n: number) {
  return {
    Id: id(n),
    ChainId: id(9000),
    Number: String(n),
    LastName: 'Nováková',
    CreatedUtc: '2026-01-01T00:00:00Z',
    UpdatedUtc: '2026-01-01T00:00:00Z',
    Classifications: [],
    Options: [],
    IsActive: true,
    PreferredSpaceFeatures: [],
    CreatorProfileId: id(9001),
    UpdaterProfileId: id(9001),
  };
}

let server: JsonServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function walk(handler: (cursor: string | undefined, n: number) => CannedResponse) {
  server = await startJsonServer((request) => {
    const limitation = (request.body as { Limitation: { Cursor?: string } }).Limitation;
    return handler(limitation.Cursor, server?.requests.length ?? 0);
  });
  const client = createConnectorClient({ ...CONFIG, baseUrl: server.url });
  const pages: Array<{ ids: string[]; cursor: string | null; last: boolean }> = [];
  try {
    for await (const page of client.paginate('customers/getAll', BODY)) {
      pages.push({ ids: page.items.map((c) => c.Id), cursor: page.cursor, last: page.last });
      if (pages.length > 20) throw new Error('the walk does not end');
    }
  } finally {
    await client.close();
  }
  return pages;
}

describe('pagination rules of connector-api.md', () => {
  it('asks the first page without a Cursor (rule 1) and each next one with the Cursor returned (rules 2, 4)', async () => {
    const pages = await walk((cursor) =>
      cursor === undefined
        ? { body: { Customers: [1, 2, 3].map(customer), Cursor: id(3) } }
        : { body: { Customers: [customer(4)], Cursor: id(4) } },
    );
    expect(pages.map((p) => p.ids.length)).toEqual([3, 1]);
    const cursors = server!.requests.map(
      (r) => (r.body as { Limitation: { Cursor?: string | null } }).Limitation.Cursor,
    );
    expect(cursors).toEqual([undefined, id(3)]);
  });

  it('ends on a page with fewer items than Count even when its Cursor is not null (rule 5)', async () => {
    const pages = await walk(() => ({ body: { Customers: [customer(1)], Cursor: id(1) } }));
    expect(pages).toEqual([{ ids: [id(1)], cursor: id(1), last: true }]);
    expect(server!.requests).toHaveLength(1);
  });

  it('ends on a null Cursor, keeping the items of a full page that carries it (rule 5)', async () => {
    const pages = await walk(() => ({
      body: { Customers: [1, 2, 3].map(customer), Cursor: null },
    }));
    expect(pages).toEqual([{ ids: [id(1), id(2), id(3)], cursor: null, last: true }]);
    expect(server!.requests).toHaveLength(1);
  });

  it('ends on an empty page whatever its Cursor says (rule 4: no data, nothing older)', async () => {
    const pages = await walk((cursor) =>
      cursor === undefined
        ? { body: { Customers: [1, 2, 3].map(customer), Cursor: id(3) } }
        : { body: { Customers: [], Cursor: id(3) } },
    );
    expect(pages.map((p) => p.last)).toEqual([false, true]);
    expect(server!.requests).toHaveLength(2);
  });

  it('refuses a full page whose Cursor repeats the one asked with, naming Cursor, instead of asking for it for ever (rule 2)', async () => {
    const walked = walk((cursor) => ({
      body: { Customers: [1, 2, 3].map(customer), Cursor: cursor ?? id(3) },
    }));
    await expect(walked).rejects.toMatchObject({
      name: 'ConnectorError',
      category: 'response',
      message: expect.stringContaining('Cursor'),
    });
    expect(server!.requests).toHaveLength(2);
  });
});
