import { afterEach, describe, expect, it } from 'vitest';
import type { AdminDeps } from '../../shared/admin/admin-deps.ts';
import type { AdminResponse } from '../../shared/admin/route.ts';
import { handleAdminRequest } from '../../shared/admin/router.ts';
import { streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { streamMatches } from '../../shared/state/state-store.ts';
import { streamState } from '../state/state-store.contract.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

type Page = { streams: { id: string }[]; budgets?: unknown[]; nextCursor?: string };

const hotel = (i: number) => `hotel-${String(i).padStart(4, '0')}`;

/**
 * A harness whose deps list the streams of `hotel-0000`…`hotel-<configured - 1>` (three each:
 * customer, resource, taxEnvironment) and which stores the states of `hotel-<storedFrom>` up to
 * `hotel-<storedTo - 1>`: streams configured and never polled, polled ones, and ones kept after
 * their connection went. The ids of them all, in order.
 */
async function hotels(configured: number, storedFrom: number, storedTo: number) {
  harness = createAdminHarness();
  const definitions = Array.from({ length: configured }, (_, i) =>
    streamDefinitions(hotel(i), harness.settings),
  ).flat();
  harness.deps.streams = async (filter) =>
    definitions.filter((d) => streamMatches(d.streamId, filter));
  const types = ['customer', 'resource', 'taxEnvironment'];
  for (let i = storedFrom; i < storedTo; i++)
    for (const type of types) await harness.state.saveStream(streamState(`${hotel(i)}:${type}`), 0);
  const last = Math.max(configured, storedTo);
  const ids = Array.from({ length: last }, (_, i) => types.map((t) => `${hotel(i)}:${t}`))
    .flat()
    .sort();
  return ids;
}

async function list(query: Record<string, string>, deps: AdminDeps = harness.deps) {
  return handleAdminRequest({ method: 'GET', path: '/streams', query, body: undefined }, deps);
}

function page(answer: AdminResponse): Page {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as Page;
}

/** Every page from the first, following nextCursor: the pages' stream ids. */
async function everyPage(query: Record<string, string>, deps?: AdminDeps) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const answer = page(await list({ ...query, ...(cursor ? { cursor } : {}) }, deps));
    pages.push(answer.streams.map((s) => s.id));
    cursor = answer.nextCursor;
    expect(pages.length).toBeLessThan(1000);
  } while (cursor !== undefined);
  return pages;
}

describe('GET /streams in pages (limit, cursor, nextCursor)', () => {
  it('pages through 9,000 streams, each exactly once and in order, nextCursor on every page but the last', async () => {
    // 6,000 configured, 6,000 stored, 3,000 of them both: 9,000 streams.
    const ids = await hotels(2000, 1000, 3000);
    expect(ids).toHaveLength(9000);

    const pages = await everyPage({ limit: '1000' });

    expect(pages.map((p) => p.length)).toEqual(Array(9).fill(1000));
    expect(pages.flat()).toEqual(ids);
  }, 30_000);

  it('answers every stream without limit or cursor and no nextCursor where no bound is set (start)', async () => {
    const ids = await hotels(30, 20, 40);
    const answer = page(await list({}));
    expect(answer.streams.map((s) => s.id)).toEqual(ids);
    expect(answer.nextCursor).toBeUndefined();
  });

  it("past the deployment's bound, answers the first page with nextCursor instead of 400", async () => {
    const ids = await hotels(30, 20, 40);
    const bounded = { ...harness.deps, streamListLimit: 50 };

    const first = page(await list({}, bounded));
    expect(first.streams.map((s) => s.id)).toEqual(ids.slice(0, 50));
    expect(first.nextCursor).toEqual(expect.any(String));
    expect((await everyPage({}, bounded)).flat()).toEqual(ids);
    // Within the bound, everything with no nextCursor, as before.
    const within = page(await list({}, { ...harness.deps, streamListLimit: ids.length }));
    expect(within.streams).toHaveLength(ids.length);
    expect(within.nextCursor).toBeUndefined();
    // A smaller limit is taken; a larger one is held to the bound.
    expect(page(await list({ limit: '7' }, bounded)).streams).toHaveLength(7);
    expect(page(await list({ limit: '70' }, bounded)).streams).toHaveLength(50);
  });

  it("ends a page before its answer passes the deployment's byte bound, every stream still once", async () => {
    const ids = await hotels(10, 5, 15);
    const long = 'x'.repeat(1500);
    await harness.state.saveStream(
      streamState(`${hotel(20)}:customer`, { lastError: long, parkedReason: long, parked: true }),
      0,
    );
    const all = [...ids, `${hotel(20)}:customer`];
    const bytes = 8_000;
    const bounded = { ...harness.deps, streamListBytes: bytes };

    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const answer = await list(cursor ? { cursor } : {}, bounded);
      const body = page(answer);
      // As the AWS function returns it: the JSON text inside the proxy result's JSON.
      expect(Buffer.byteLength(JSON.stringify(JSON.stringify(body)))).toBeLessThanOrEqual(bytes);
      pages.push(body.streams.map((s) => s.id));
      cursor = body.nextCursor;
    } while (cursor !== undefined);

    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flat()).toEqual(all);
  });

  it('keeps going from where a page ended when streams were added or removed before it meanwhile', async () => {
    const ids = await hotels(0, 0, 100);
    const first = page(await list({ limit: '30' }));
    const ended = first.streams.at(-1)!.id;
    // Ten new streams before where the page ended, one after it, and one of the page removed.
    for (let i = 0; i < 10; i++)
      await harness.state.saveStream(streamState(`${hotel(0)}:added${i}`), 0);
    await harness.state.saveStream(streamState(`${hotel(99)}:zz`), 0);
    await harness.state.deleteStream(ids[3]!);

    const rest = await everyPage({ limit: '30', cursor: first.nextCursor! });

    expect(rest.flat()).toEqual([...ids.filter((id) => id > ended), `${hotel(99)}:zz`].sort());
  });

  it("pages one connection's streams with connectionId", async () => {
    await hotels(3, 0, 3);
    for (const type of ['a', 'b', 'c', 'd'])
      await harness.state.saveStream(streamState(`${hotel(1)}:${type}`), 0);
    const pages = await everyPage({ connectionId: hotel(1), limit: '2' });
    expect(pages.flat()).toEqual(
      ['a', 'b', 'c', 'customer', 'd', 'resource', 'taxEnvironment'].map((t) => `${hotel(1)}:${t}`),
    );
    expect(pages.map((p) => p.length)).toEqual([2, 2, 2, 1]);
  });

  it("gives with each page the connector budgets of its streams' connections alone, however many there are", async () => {
    await hotels(3, 0, 0);
    const budget = (connectionId: string) => ({
      connectionId,
      requestsInWindow: 1,
      limit: 10,
      liveReserve: 2,
      queued: { live: 0, bulk: 0 },
      pausedUntil: null,
    });
    // The page's three connections among a thousand others.
    harness.deps.budgets = () =>
      Array.from({ length: 1000 }, (_, i) => budget(`other-${i}`)).concat(
        [0, 1, 2].map((i) => budget(hotel(i))),
      );
    const pages: { streams: string[]; budgets: string[] }[] = [];
    let cursor: string | undefined;
    do {
      const answer = page(await list({ limit: '4', ...(cursor ? { cursor } : {}) }));
      pages.push({
        streams: answer.streams.map((s) => s.id),
        budgets: (answer.budgets as { connectionId: string }[]).map((b) => b.connectionId),
      });
      cursor = answer.nextCursor;
    } while (cursor !== undefined);

    expect(pages.map((p) => p.budgets)).toEqual([
      [hotel(0), hotel(1)],
      [hotel(1), hotel(2)],
      [hotel(2)],
    ]);
  });

  it.each([
    ['cursor', 'not-a-cursor!'],
    ['cursor', ''],
    ['cursor', Buffer.from('x:hotel-0001:customer').toString('base64url')],
    ['cursor', Buffer.from('-1:hotel-0001:customer').toString('base64url')],
    ['cursor', Buffer.from('3:').toString('base64url')],
    ['limit', '0'],
    ['limit', '4001'],
    ['limit', '1e3'],
  ])('answers 400 naming %s for %j', async (field, value) => {
    await hotels(3, 0, 3);
    const answer = await list({ [field]: value });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ field });
  });
});
