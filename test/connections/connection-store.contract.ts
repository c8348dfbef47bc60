import { describe, expect, it } from 'vitest';
import type { StoredConnection } from '../../shared/connections/connection.ts';
import {
  ConnectionExistsError,
  type ConnectionStore,
  listAllConnections,
} from '../../shared/connections/connection-store.ts';

/** A stored connection with a placeholder sealed token. */
export function storedConnection(
  id: string,
  overrides: Partial<StoredConnection> = {},
): StoredConnection {
  return {
    id,
    enabled: true,
    createdAt: '2026-01-01T00:00:00.000Z',
    entities: ['customer'],
    accessToken: { v: 1, wrappedKey: 'k', iv: 'aXY=', tag: 'dGFn', ciphertext: 'Y3Q=' },
    ...overrides,
  };
}

/** The behaviour every ConnectionStore shares; `create` gives a fresh, empty store. */
export function describeConnectionStoreContract(
  name: string,
  create: () => Promise<ConnectionStore>,
): void {
  describe(`${name}: connection store contract`, () => {
    it('reads back a created connection with every field', async () => {
      const store = await create();
      const connection = storedConnection('hotel-1', {
        intervalMs: 60_000,
        initialSync: 'emit',
        portfolioScope: { chainIds: ['4d0201db-6bb9-4c9d-8bd0-3a1a0e7d0b5f'], enterpriseIds: [] },
        productIds: ['p1@Europe/Prague'],
        exportIds: ['e1'],
      });
      await store.create(connection);

      expect(await store.get('hotel-1')).toEqual(connection);
      expect(await store.get('hotel-2')).toBeUndefined();
    });

    it('refuses a second connection with the same id and keeps the first', async () => {
      const store = await create();
      await store.create(storedConnection('hotel-1'));

      await expect(
        store.create(storedConnection('hotel-1', { entities: ['resource'] })),
      ).rejects.toBeInstanceOf(ConnectionExistsError);
      expect((await store.get('hotel-1'))?.entities).toEqual(['customer']);
    });

    it('lists connections in id order, page by page, without losing or repeating one', async () => {
      const store = await create();
      const ids = Array.from({ length: 7 }, (_, index) => `hotel-${index}`);
      for (const id of [...ids].reverse()) await store.create(storedConnection(id));

      const first = await store.listPage({ limit: 3 });
      expect(first.connections.map((c) => c.id)).toEqual(ids.slice(0, 3));
      expect(first.next).toBeDefined();
      const second = await store.listPage({ limit: 3, after: first.next! });
      expect(second.connections.map((c) => c.id)).toEqual(ids.slice(3, 6));
      expect((await listAllConnections(store)).map((c) => c.id)).toEqual(ids);
    });

    it('disables and enables a connection, and answers undefined for an unknown id', async () => {
      const store = await create();
      await store.create(storedConnection('hotel-1'));

      expect((await store.setEnabled('hotel-1', false))?.enabled).toBe(false);
      expect((await store.get('hotel-1'))?.enabled).toBe(false);
      expect((await store.setEnabled('hotel-1', true))?.enabled).toBe(true);
      expect(await store.setEnabled('nobody', false)).toBeUndefined();
      expect(await store.get('nobody')).toBeUndefined();
    });

    it('records when a connection is next due, and never revives a removed one', async () => {
      const store = await create();
      await store.create(storedConnection('hotel-1'));

      await store.recordNextDue('hotel-1', 1_767_225_660_000);
      expect((await store.get('hotel-1'))?.nextDueAt).toBe(1_767_225_660_000);
      await store.remove('hotel-1');
      await store.recordNextDue('hotel-1', 1_767_225_720_000);
      expect(await store.get('hotel-1')).toBeUndefined();
    });

    it('removes a connection with its sealed token, once', async () => {
      const store = await create();
      await store.create(storedConnection('hotel-1'));

      expect(await store.remove('hotel-1')).toBe(true);
      expect(await store.get('hotel-1')).toBeUndefined();
      expect(await store.remove('hotel-1')).toBe(false);
      expect(await listAllConnections(store)).toEqual([]);
    });

    it('removes only the registration named, never one added again since', async () => {
      const store = await create();
      await store.create(storedConnection('hotel-1', { createdAt: '2026-01-02T00:00:00.000Z' }));

      expect(await store.remove('hotel-1', '2026-01-01T00:00:00.000Z')).toBe(false);
      expect(await store.get('hotel-1')).toBeDefined();
      expect(await store.remove('hotel-1', '2026-01-02T00:00:00.000Z')).toBe(true);
      expect(await store.remove('hotel-1', '2026-01-02T00:00:00.000Z')).toBe(false);
    });
  });
}
