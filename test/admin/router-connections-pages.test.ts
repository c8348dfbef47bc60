import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AdminDeps } from '../../shared/admin/admin-deps.ts';
import type { AdminResponse } from '../../shared/admin/route.ts';
import { handleAdminRequest } from '../../shared/admin/router.ts';
import type { ConnectionView } from '../../shared/connections/connection.ts';
import { type AdminHarness, createAdminHarness, HARNESS_START_MS } from './support/harness.ts';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

type Page = { connections: { id: string }[]; nextCursor?: string };

const hotel = (i: number) => `hotel-${String(i).padStart(4, '0')}`;

/** A harness with `count` stored connections, added through the API in a shuffled order. */
async function hotels(count: number): Promise<string[]> {
  harness = createAdminHarness();
  const ids = Array.from({ length: count }, (_, i) => hotel(i));
  const shuffled = [...ids].sort((a, b) =>
    a.split('').reverse() < b.split('').reverse() ? -1 : 1,
  );
  for (const id of shuffled) {
    const added = await harness.call('POST', '/connections', {
      body: { id, accessToken: `token-${id}`, entities: 'customer' },
    });
    expect(added.status).toBe(201);
  }
  return ids;
}

async function list(query: Record<string, string>, deps: AdminDeps = harness.deps) {
  return handleAdminRequest({ method: 'GET', path: '/connections', query, body: undefined }, deps);
}

function page(answer: AdminResponse): Page {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as Page;
}

/** Every page from the first, following nextCursor: the pages' connection ids. */
async function everyPage(query: Record<string, string>, deps?: AdminDeps) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const answer = page(await list({ ...query, ...(cursor ? { cursor } : {}) }, deps));
    pages.push(answer.connections.map((c) => c.id));
    cursor = answer.nextCursor;
    expect(pages.length).toBeLessThan(100);
  } while (cursor !== undefined);
  return pages;
}

/** Counts the stored connections the connection store hands out to listings. */
function countListed(deps: AdminDeps): { connections: number } {
  const counted = { connections: 0 };
  const store = deps.connections!.store;
  const listPage = store.listPage.bind(store);
  vi.spyOn(store, 'listPage').mockImplementation(async (options) => {
    const read = await listPage(options);
    counted.connections += read.connections.length;
    return read;
  });
  return counted;
}

const environmentView = (id: string): ConnectionView => ({
  id,
  enabled: true,
  createdAt: new Date(HARNESS_START_MS).toISOString(),
  origin: 'environment',
});

describe('GET /connections in pages (limit, cursor, nextCursor)', () => {
  it('pages through 250 connections and the environment one, each exactly once and in order', async () => {
    const ids = await hotels(250);

    const pages = await everyPage({ limit: '100' });

    expect(pages.map((p) => p.length)).toEqual([100, 100, 51]);
    expect(pages.flat()).toEqual(['main', ...ids]);
  });

  it('reads the stored connections of its page and one more, however many there are', async () => {
    await hotels(300);
    const counted = countListed(harness.deps);

    const first = page(await list({ limit: '20' }));
    expect(first.connections).toHaveLength(20);
    expect(counted.connections).toBeLessThanOrEqual(20);
    counted.connections = 0;
    const second = page(await list({ limit: '20', cursor: first.nextCursor! }));
    expect(second.connections.map((c) => c.id)).toEqual(
      Array.from({ length: 20 }, (_, i) => hotel(19 + i)),
    );
    expect(counted.connections).toBeLessThanOrEqual(21);
  });

  it('answers every connection without limit or cursor and no nextCursor where no bound is set (start)', async () => {
    const ids = await hotels(120);
    const answer = page(await list({}));
    expect(answer.connections.map((c) => c.id)).toEqual(['main', ...ids]);
    expect(answer.nextCursor).toBeUndefined();
  });

  it("past the deployment's bound, answers the first page with nextCursor; a limit is held to it", async () => {
    const ids = await hotels(60);
    const bounded = { ...harness.deps, connectionListLimit: 25 };

    const first = page(await list({}, bounded));
    expect(first.connections.map((c) => c.id)).toEqual(['main', ...ids].slice(0, 25));
    expect(first.nextCursor).toEqual(expect.any(String));
    expect((await everyPage({}, bounded)).flat()).toEqual(['main', ...ids]);
    const within = page(await list({}, { ...harness.deps, connectionListLimit: 61 }));
    expect(within.connections).toHaveLength(61);
    expect(within.nextCursor).toBeUndefined();
    expect(page(await list({ limit: '7' }, bounded)).connections).toHaveLength(7);
    expect(page(await list({ limit: '70' }, bounded)).connections).toHaveLength(25);
  });

  it("ends a page before its answer passes the deployment's byte bound, every connection still once", async () => {
    const ids = await hotels(40);
    const bytes = 3_000;
    const bounded = { ...harness.deps, connectionListBytes: bytes };

    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const body = page(await list(cursor ? { cursor } : {}, bounded));
      // As the AWS function returns it: the JSON text inside the proxy result's JSON.
      expect(Buffer.byteLength(JSON.stringify(JSON.stringify(body)))).toBeLessThanOrEqual(bytes);
      pages.push(body.connections.map((c) => c.id));
      cursor = body.nextCursor;
    } while (cursor !== undefined);

    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flat()).toEqual(['main', ...ids]);
  });

  it('pages across several environment connections before the stored ones', async () => {
    const ids = await hotels(3);
    harness.deps.connections!.configured = ['main', 'eu', 'us'].map(environmentView);

    const pages = await everyPage({ limit: '2' });

    expect(pages).toEqual([
      ['main', 'eu'],
      ['us', ids[0]],
      [ids[1], ids[2]],
    ]);
  });

  it('goes on after where a page ended when connections were added or removed meanwhile', async () => {
    const ids = await hotels(30);
    const first = page(await list({ limit: '10' }));
    const ended = first.connections.at(-1)!.id;
    await harness.call('DELETE', `/connections/${ids[3]}`);
    await harness.call('DELETE', `/connections/${ids[12]}`);
    await harness.call('POST', '/connections', {
      body: { id: 'a-first', accessToken: 'token-a', entities: 'customer' },
    });

    const rest = await everyPage({ limit: '10', cursor: first.nextCursor! });

    expect(rest.flat()).toEqual(ids.filter((id) => id > ended && id !== ids[12]));
  });

  it.each([
    ['cursor', 'not-a-cursor!'],
    ['cursor', ''],
    ['cursor', Buffer.from('x:hotel-0001').toString('base64url')],
    ['cursor', Buffer.from('-1:hotel-0001').toString('base64url')],
    ['cursor', Buffer.from('hotel-0001').toString('base64url')],
    ['limit', '0'],
    ['limit', '4001'],
    ['limit', '1e3'],
    ['limt', '10'],
  ])('answers 400 naming %s for %j', async (field, value) => {
    await hotels(3);
    const answer = await list({ [field]: value });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ field });
  });
});
