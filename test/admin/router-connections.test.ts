import { afterEach, describe, expect, it } from 'vitest';
import { snapshot, streamState } from '../state/state-store.contract.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

const TOKEN = 'hotel-access-token-9c1e';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

async function addHotel(id = 'hotel-1', extra: Record<string, unknown> = {}) {
  return harness.call('POST', '/connections', {
    body: { id, accessToken: TOKEN, entities: 'customer,resource', interval: '1m', ...extra },
  });
}

describe('connections admin API', () => {
  it('registers a connection, stores its token sealed, and never answers with it', async () => {
    harness = createAdminHarness();
    const created = await addHotel();

    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: 'hotel-1',
      entities: ['customer', 'resource'],
      intervalMs: 60_000,
      enabled: true,
      origin: 'store',
    });
    const stored = await harness.connections.get('hotel-1');
    expect(JSON.stringify(stored)).not.toContain(TOKEN);
    expect(await harness.deps.connections!.cipher.open('hotel-1', stored!.accessToken)).toBe(TOKEN);
    const answers = [
      created,
      await harness.call('GET', '/connections'),
      await harness.call('GET', '/connections/hotel-1'),
      await harness.call('POST', '/connections/hotel-1/disable'),
      await harness.call('DELETE', '/connections/hotel-1'),
    ];
    for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(TOKEN);
    expect(harness.connectionChanges.count).toBeGreaterThanOrEqual(3);
  });

  it('lists the environment connection first, then the stored ones', async () => {
    harness = createAdminHarness();
    await addHotel('b-hotel');
    await addHotel('a-hotel');

    const list = await harness.call('GET', '/connections');
    const ids = (list.body as { connections: { id: string; origin: string }[] }).connections;
    expect(ids.map((c) => `${c.id}/${c.origin}`)).toEqual([
      'main/environment',
      'a-hotel/store',
      'b-hotel/store',
    ]);
  });

  it('answers 409 for an id taken by another definition and for changing the environment connection, 404 for an unknown one', async () => {
    harness = createAdminHarness();
    await addHotel();

    expect((await addHotel('hotel-1', { interval: '2m' })).status).toBe(409);
    expect((await addHotel('main')).status).toBe(409);
    expect((await harness.call('POST', '/connections/main/disable')).status).toBe(409);
    expect((await harness.call('GET', '/connections/nobody')).status).toBe(404);
    expect((await harness.call('DELETE', '/connections/nobody')).status).toBe(404);
  });

  it('answers 400 naming the field for a bad id, interval, entity or scope, without echoing the token', async () => {
    harness = createAdminHarness();
    const cases: [Record<string, unknown>, string][] = [
      [{ id: 'no spaces' }, 'id'],
      [{ id: 'connection' }, 'id'],
      [{ interval: 'soon' }, 'interval'],
      [{ entities: 'customer,guest' }, 'entities[1]'],
      // Two streams with one id, each polled and stored in turn.
      [{ entities: 'customer,resource,customer' }, 'entities'],
      [{ accessToken: '' }, 'accessToken'],
      [{ token: 'x' }, 'token'],
      [{ portfolioScope: { chainIDs: [] } }, 'portfolioScope.chainIDs'],
      // Refused at once, not accepted and then failing every poll.
      [{ productIds: 'not-a-product' }, 'productIds[0]'],
      [{ productIds: `${crypto.randomUUID()}@Europe/Pargue` }, 'productIds[0]'],
      [{ exportIds: [crypto.randomUUID(), 'x'] }, 'exportIds[1]'],
      // `--export-ids ,` is two empty items: the first is named (an empty list would follow nothing).
      [{ exportIds: ',' }, 'exportIds[0]'],
      [{ productIds: [] }, 'productIds'],
    ];
    for (const [extra, field] of cases) {
      const response = await addHotel('hotel-1', extra);
      expect(response.status, field).toBe(400);
      expect((response.body as { field: string }).field).toBe(field);
      expect(JSON.stringify(response.body)).not.toContain(TOKEN);
    }
  });

  it('refuses an enterprise-only portfolio scope for a connection that polls customers (they need a chain)', async () => {
    harness = createAdminHarness();
    const enterprise = {
      portfolioScope: { enterpriseIds: ['8f7b1c84-61b5-4b52-9c29-6a4d3c0e1f11'] },
    };
    for (const extra of [enterprise, { ...enterprise, entities: 'resource,customer' }]) {
      const response = await addHotel('hotel-1', extra);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ field: 'portfolioScope.chainIds' });
      expect((response.body as { error: string }).error).toContain('customer needs a chain');
    }
    expect((await addHotel('hotel-1', { ...enterprise, entities: 'resource' })).status).toBe(201);
  });

  it('refuses a portfolio connection naming an entity its token cannot read, 400 naming entities', async () => {
    harness = createAdminHarness();
    const portfolioScope = { chainIds: ['4d0201db-36f6-4ad5-8b0b-1a7fa9e8a5c2'] };
    const response = await addHotel('group', {
      portfolioScope,
      entities: 'customer,taxEnvironment',
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ field: 'entities' });
    expect((response.body as { error: string }).error).toContain('cannot read taxEnvironment');
    expect((await addHotel('group', { portfolioScope, entities: 'customer' })).status).toBe(201);
    // Left to the deployment's entities, it is accepted (and polls what its token reads).
    expect(
      (
        await harness.call('POST', '/connections', {
          body: { id: 'group-2', accessToken: TOKEN, portfolioScope },
        })
      ).status,
    ).toBe(201);
  });

  it('disables and enables a connection, keeping its stream state', async () => {
    harness = createAdminHarness();
    await addHotel();
    await harness.state.saveStream(streamState('hotel-1:customer', { connectionId: 'hotel-1' }), 0);

    const disabled = await harness.call('POST', '/connections/hotel-1/disable');
    expect(disabled.body).toMatchObject({ enabled: false });
    expect(await harness.state.getStream('hotel-1:customer')).toBeDefined();
    const enabled = await harness.call('POST', '/connections/hotel-1/enable');
    expect(enabled.body).toMatchObject({ enabled: true });
  });

  it('removes a connection with its token and its streams’ state and snapshots', async () => {
    harness = createAdminHarness();
    await addHotel();
    await harness.state.saveStream(streamState('hotel-1:customer', { connectionId: 'hotel-1' }), 0);
    await harness.state.putSnapshots('hotel-1:customer', [snapshot('c-1')]);
    await harness.state.saveStream(streamState('main:customer', { connectionId: 'main' }), 0);

    const removed = await harness.call('DELETE', '/connections/hotel-1');
    expect(removed.body).toEqual({
      id: 'hotel-1',
      removed: true,
      streamsDeleted: 1,
      stateDeletion: 'done',
    });
    expect(await harness.connections.get('hotel-1')).toBeUndefined();
    expect(await harness.state.getStream('hotel-1:customer')).toBeUndefined();
    expect((await harness.state.getSnapshots('hotel-1:customer', ['c-1'])).size).toBe(0);
    expect(await harness.state.getStream('main:customer')).toBeDefined();
  });

  it('keeps the streams’ state and snapshots with keepState=true', async () => {
    harness = createAdminHarness();
    await addHotel();
    await harness.state.saveStream(streamState('hotel-1:customer', { connectionId: 'hotel-1' }), 0);

    const removed = await harness.call('DELETE', '/connections/hotel-1', {
      query: { keepState: 'true' },
    });
    expect(removed.body).toEqual({
      id: 'hotel-1',
      removed: true,
      streamsDeleted: 0,
      stateDeletion: 'done',
    });
    expect(await harness.connections.get('hotel-1')).toBeUndefined();
    expect(await harness.state.getStream('hotel-1:customer')).toBeDefined();
  });
});
