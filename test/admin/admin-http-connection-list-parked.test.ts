import { afterEach, describe, expect, it } from 'vitest';
import type { AdminDeps } from '../../shared/admin/admin-deps.ts';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import type { StateStore, StreamFilter } from '../../shared/state/state-store.ts';
import { streamState } from '../state/state-store.contract.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

const REFUSED = 'authorization failed: 401 Unauthorized: Invalid AccessToken';

let harness: AdminHarness | undefined;
let server: AdminServer | undefined;
afterEach(async () => {
  await server?.close();
  await harness?.close();
  server = undefined;
  harness = undefined;
});

/** hotel-1 with two of its three streams parked, hotel-10 with one of one, hotel-2 with none. */
async function seeded(): Promise<AdminHarness> {
  harness = createAdminHarness();
  for (const id of ['hotel-1', 'hotel-10', 'hotel-2']) {
    const added = await harness.call('POST', '/connections', {
      body: { id, accessToken: `token-${id}` },
    });
    expect(added.status).toBe(201);
  }
  const parked = { parked: true, parkedReason: REFUSED };
  await harness.state.saveStream(streamState('hotel-1:resource', parked), 0);
  await harness.state.saveStream(streamState('hotel-1:customer', parked), 0);
  await harness.state.saveStream(streamState('hotel-1:accountNote'), 0);
  await harness.state.saveStream(
    streamState('hotel-10:customer', { parked: true, parkedReason: 'other' }),
    0,
  );
  await harness.state.saveStream(streamState('hotel-2:customer'), 0);
  return harness;
}

/** The connection filters of the state store's listings, in call order. */
function countingListings(state: StateStore): { state: StateStore; filters: StreamFilter[] } {
  const filters: StreamFilter[] = [];
  const listStreams: StateStore['listStreams'] = (filter, options) => {
    filters.push(filter ?? {});
    return state.listStreams(filter, options);
  };
  const counted = new Proxy(state, {
    get(target, key) {
      if (key === 'listStreams') return listStreams;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { state: counted, filters };
}

async function listPage(url: string, query = ''): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}/connections${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

const HOTEL_1_PARKED = {
  count: 2,
  total: 3,
  first: { streamId: 'hotel-1:customer', reason: REFUSED },
};

describe('GET /connections with parked streams', () => {
  it('gives each listed connection its parkedStreams, as GET /connections/{id} does', async () => {
    const harness = await seeded();
    server = await startAdminServer({ port: 0, deps: harness.deps });

    const list = await listPage(server.url);

    expect(list.connections).toEqual([
      expect.objectContaining({ id: 'main', parkedStreams: { count: 0, total: 0 } }),
      expect.objectContaining({ id: 'hotel-1', parkedStreams: HOTEL_1_PARKED }),
      expect.objectContaining({
        id: 'hotel-10',
        parkedStreams: {
          count: 1,
          total: 1,
          first: { streamId: 'hotel-10:customer', reason: 'other' },
        },
      }),
      expect.objectContaining({ id: 'hotel-2', parkedStreams: { count: 0, total: 1 } }),
    ]);
    const detail = (await (await fetch(`${server.url}/connections/hotel-1`)).json()) as {
      parkedStreams: unknown;
    };
    expect(detail.parkedStreams).toEqual(HOTEL_1_PARKED);
  });

  it("reads a bounded page's own connections' stream states, none of another page", async () => {
    const harness = await seeded();
    const { state, filters } = countingListings(harness.state);
    const deps: AdminDeps = {
      ...harness.deps,
      connectionListLimit: 2,
      connections: { ...harness.deps.connections!, state },
    };
    server = await startAdminServer({ port: 0, deps });

    const first = await listPage(server.url);
    const firstReads = filters.splice(0);
    const second = await listPage(server.url, `?cursor=${String(first.nextCursor)}`);

    expect((first.connections as { id: string }[]).map((c) => c.id)).toEqual(['main', 'hotel-1']);
    expect(firstReads).toEqual([{ connectionId: 'main' }, { connectionId: 'hotel-1' }]);
    expect(second.connections).toEqual([
      expect.objectContaining({
        id: 'hotel-10',
        parkedStreams: expect.objectContaining({ count: 1 }),
      }),
      expect.objectContaining({ id: 'hotel-2', parkedStreams: { count: 0, total: 1 } }),
    ]);
    expect(filters).toEqual([{ connectionId: 'hotel-10' }, { connectionId: 'hotel-2' }]);
  });

  it('reads every stream state once for a page of every connection (the local start)', async () => {
    const harness = await seeded();
    const { state, filters } = countingListings(harness.state);
    server = await startAdminServer({
      port: 0,
      deps: { ...harness.deps, connections: { ...harness.deps.connections!, state } },
    });

    const list = await listPage(server.url);

    expect(filters).toEqual([{}]);
    expect((list.connections as { id: string }[]).map((c) => c.id)).toEqual([
      'main',
      'hotel-1',
      'hotel-10',
      'hotel-2',
    ]);
  });

  it('reads no stream state with parkedStreams=false, for a caller that reads the streams itself', async () => {
    const harness = await seeded();
    const { state, filters } = countingListings(harness.state);
    server = await startAdminServer({
      port: 0,
      deps: {
        ...harness.deps,
        connectionListLimit: 2,
        connections: { ...harness.deps.connections!, state },
      },
    });

    const page = await listPage(server.url, '?parkedStreams=false');

    expect(filters).toEqual([]);
    expect(page.connections).toEqual([
      expect.not.objectContaining({ parkedStreams: expect.anything() }),
      expect.not.objectContaining({ parkedStreams: expect.anything() }),
    ]);
    const refused = await fetch(`${server.url}/connections?parkedStreams=no`);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { field: string }).field).toBe('parkedStreams');
  });

  it('documents parkedStreams on each connection of listConnections in the OpenAPI document', async () => {
    harness = createAdminHarness();
    server = await startAdminServer({ port: 0, deps: harness.deps });
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, { get: { responses: Record<string, unknown> } }>;
    };
    const answer = document.paths['/connections']?.get.responses['200'] as {
      content: {
        'application/json': {
          schema: {
            properties: { connections: { items: { properties: Record<string, unknown> } } };
          };
        };
      };
    };
    const item = answer.content['application/json'].schema.properties.connections.items;

    expect(item.properties.parkedStreams).toMatchObject({
      type: 'object',
      properties: { count: { type: 'integer' }, total: { type: 'integer' } },
    });
  });
});
