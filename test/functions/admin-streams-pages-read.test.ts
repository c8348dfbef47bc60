import { afterEach, describe, expect, it } from 'vitest';
import { adminStreamDefinitions } from '../../functions/admin-api.ts';
import type { AdminDeps } from '../../shared/admin/admin-deps.ts';
import { handleAdminRequest } from '../../shared/admin/router.ts';
import type { StoredConnection } from '../../shared/connections/connection.ts';
import type {
  ConnectionPage,
  ConnectionStore,
  ListConnectionsOptions,
} from '../../shared/connections/connection-store.ts';
import { prefixesSortingAfter } from '../../shared/connections/connection-streams-after.ts';
import { MemoryConnectionStore } from '../../shared/connections/memory-connection-store.ts';
import { streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';
import { storedConnection } from '../connections/connection-store.contract.ts';
import { streamState } from '../state/state-store.contract.ts';

/** A connection store that counts the stored connections it hands out (listed or got). */
class CountingConnectionStore extends MemoryConnectionStore {
  itemsRead = 0;
  /** Pages of the listing asked for (a Query each in DynamoDB). */
  listings = 0;
  override async listPage(options?: ListConnectionsOptions): Promise<ConnectionPage> {
    const page = await super.listPage(options);
    this.itemsRead += page.connections.length;
    this.listings += 1;
    return page;
  }
  override async get(id: string): Promise<StoredConnection | undefined> {
    const found = await super.get(id);
    if (found) this.itemsRead += 1;
    return found;
  }
}

let harness: AdminHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The admin deps of the AWS function over `store`, paging `GET /streams` by `bound`. */
function awsDeps(store: ConnectionStore, bound: number): AdminDeps {
  harness = createAdminHarness();
  const poll = {
    definitions: streamDefinitions('main', harness.settings),
    settings: harness.settings,
    tracked: {},
  };
  return {
    ...harness.deps,
    streams: adminStreamDefinitions(poll, store),
    streamListLimit: bound,
  };
}

/** One page of GET /streams: its ids and its cursor. */
async function page(deps: AdminDeps, query: Record<string, string>) {
  const answer = await handleAdminRequest(
    { method: 'GET', path: '/streams', query, body: undefined },
    deps,
  );
  expect(answer.status).toBe(200);
  const body = answer.body as { streams: { id: string }[]; nextCursor?: string };
  return { ids: body.streams.map((s) => s.id), nextCursor: body.nextCursor };
}

/** Every page of GET /streams, followed to the last. */
async function walk(deps: AdminDeps, limit?: number): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const query: Record<string, string> = {
      ...(limit === undefined ? {} : { limit: String(limit) }),
      ...(cursor === undefined ? {} : { cursor }),
    };
    const next = await page(deps, query);
    pages.push(next.ids);
    cursor = next.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('prefixesSortingAfter', () => {
  it('names the prefixes an id continues with a dash or a digit, whose streams sort after its own', () => {
    expect(prefixesSortingAfter('hotel-12')).toEqual(['hotel', 'hotel-', 'hotel-1']);
    expect(prefixesSortingAfter('a_b')).toEqual([]);
    // Only valid ids: a made-up cursor's `a.b` has `a`, not `a.`.
    expect(prefixesSortingAfter('a.b-')).toEqual(['a']);
    for (const prefix of prefixesSortingAfter('x-0-9'))
      expect(`${prefix}:customer` > 'x-0-9:customer').toBe(true);
  });
});

describe('GET /streams in AWS at the scale of thousands of stored connections', () => {
  it('reads about a page of stored connections per page, not every one', async () => {
    const store = new CountingConnectionStore();
    const hotels = 2000;
    for (let i = 0; i < hotels; i++)
      await store.create(
        storedConnection(`hotel-${i}`, { entities: ['customer', 'resource', 'taxEnvironment'] }),
      );
    const deps = awsDeps(store, 4000);

    store.itemsRead = 0;
    const first = await page(deps, { limit: '30' });
    expect(first.ids).toHaveLength(30);
    // 30 streams are 10 connections of three: a page reads about those, not the 2,000.
    expect(store.itemsRead).toBeLessThan(30);

    store.itemsRead = 0;
    const second = await page(deps, { limit: '30', cursor: first.nextCursor! });
    expect(second.ids).toHaveLength(30);
    expect(store.itemsRead).toBeLessThan(30);
    expect(second.ids[0]! > first.ids.at(-1)!).toBe(true);
  });

  it('reads about a page of connections in few listings where connections poll fewer entity types than the deployment', async () => {
    const store = new CountingConnectionStore();
    for (let i = 0; i < 500; i++) await store.create(storedConnection(`hotel-${i}`));
    // The deployment polls three entity types; each of these connections one.
    const deps = awsDeps(store, 4000);
    store.itemsRead = 0;
    const first = await page(deps, { limit: '100' });
    expect(first.ids).toHaveLength(100);
    expect(store.itemsRead).toBeLessThan(150);
    expect(store.listings).toBeLessThanOrEqual(3);
  });

  it('walks every stream once, by id, across connection ids whose order differs from their streams', async () => {
    // `a-b:customer` sorts before `a:customer` though `a` sorts before `a-b`: the streams of
    // `a` come after those of every id `a` followed by `-` or a digit.
    const ids = ['a', 'a-b', 'a-b-c', 'a-b0', 'a0', 'a09', 'a1', 'a_b', 'ab', 'b', 'b-1', 'b-10'];
    const store = new CountingConnectionStore();
    for (const id of ids)
      await store.create(storedConnection(id, { entities: ['customer', 'resource'] }));
    await store.create(storedConnection('a-off', { enabled: false }));
    const deps = awsDeps(store, 4000);
    // Stored states of a configured stream, a disabled connection's and a removed one's.
    for (const id of ['a-b:customer', 'a-off:customer', 'a-gone:resource'])
      await deps.state.saveStream(streamState(id, { initialSyncDone: true }), 0);

    const everything = (await walk(deps)).flat();
    const expected = [
      ...ids.flatMap((id) => [`${id}:customer`, `${id}:resource`]),
      'a-off:customer',
      'a-gone:resource',
      ...(await deps.streams()).filter((d) => d.connectionId === 'main').map((d) => d.streamId),
    ].sort(byCodeUnits);
    expect(everything).toEqual(expected);

    for (const limit of [1, 2, 3, 5, 7]) {
      const pages = await walk(deps, limit);
      expect(pages.flat()).toEqual(expected);
      for (const one of pages.slice(0, -1)) expect(one).toHaveLength(limit);
    }
  });

  it('walks every stream once, by id, over many ids of letters, digits and dashes', async () => {
    // A seeded mix of ids that are prefixes of one another, with every kind of next character.
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const alphabet = ['a', 'b', '-', '0', '9', '_', 'Z'];
    const ids = new Set<string>();
    while (ids.size < 150) {
      const length = 1 + Math.floor(next() * 5);
      ids.add(
        Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''),
      );
    }
    const store = new CountingConnectionStore();
    const enabled: string[] = [];
    for (const id of ids) {
      const on = next() > 0.1;
      if (on) enabled.push(id);
      await store.create(storedConnection(id, { entities: ['customer'], enabled: on }));
    }
    const deps = awsDeps(store, 4000);
    const everything = (await walk(deps)).flat();
    expect(everything.filter((id) => !id.startsWith('main:'))).toEqual(
      enabled.map((id) => `${id}:customer`).sort(byCodeUnits),
    );
    for (const limit of [1, 4, 9]) expect((await walk(deps, limit)).flat()).toEqual(everything);
  });
});
