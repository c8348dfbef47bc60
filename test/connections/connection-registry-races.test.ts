import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  addConnection,
  type ConnectionAdminDeps,
  removeConnection,
  setConnectionEnabled,
} from '../../shared/connections/connection-admin.ts';
import { ConnectionRegistry } from '../../shared/connections/connection-registry.ts';
import type {
  ConnectionPage,
  ListConnectionsOptions,
} from '../../shared/connections/connection-store.ts';
import { LocalKeyFileProvider } from '../../shared/connections/local-key-file.ts';
import { MemoryConnectionStore } from '../../shared/connections/memory-connection-store.ts';
import { createTokenCipher } from '../../shared/connections/token-cipher.ts';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import { pollSettingsFromEnv } from '../../shared/polling/poll-settings.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';

const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer', POLL_INTERVAL: '1m' }, 0);
const cipher = createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 3)));

/** A store whose listing can be held after it has read its page (a slow read of thousands). */
class HeldListingStore extends MemoryConnectionStore {
  hold: Promise<void> | undefined;
  listed: (() => void) | undefined;
  override async listPage(options?: ListConnectionsOptions): Promise<ConnectionPage> {
    const page = await super.listPage(options);
    if (this.hold) {
      this.listed?.();
      await this.hold;
    }
    return page;
  }
}

/** The local runtime wiring: a registry refreshed by the admin operations (onChange) and by its timer. */
function setup() {
  const store = new HeldListingStore();
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const registry = new ConnectionRegistry({
    store,
    cipher,
    settings,
    deployment: { baseUrl: 'http://connector.test', clientToken: 'ct', client: 'test' },
    createClient: () => ({ close: async () => undefined }) as unknown as ConnectorClient,
    fixed: [],
  });
  const admin: ConnectionAdminDeps = {
    store,
    cipher,
    state: new MemoryStateStore(),
    clock,
    configured: [],
    onChange: (id) => registry.refreshConnection(id),
  };
  /** Starts the periodic full refresh and holds it once it has read the store. */
  const heldRefresh = async () => {
    let release!: () => void;
    store.hold = new Promise((resolve) => {
      release = resolve;
    });
    const listed = new Promise<void>((resolve) => {
      store.listed = resolve;
    });
    const refresh = registry.refresh();
    await listed;
    store.hold = undefined;
    return async () => {
      release();
      await refresh;
    };
  };
  return { store, registry, admin, heldRefresh, clock };
}

describe('connection registry and admin changes during a full refresh', () => {
  it('a connection disabled while the periodic refresh reads the store stays stopped', async () => {
    const { registry, admin, heldRefresh } = setup();
    await addConnection({ id: 'hotel-1', accessToken: 'token-1' }, admin);
    expect(registry.get('hotel-1')).toBeDefined();

    const finish = await heldRefresh();
    await setConnectionEnabled('hotel-1', false, admin);
    // `disable` answered: "stops its polls at once".
    expect(registry.get('hotel-1')).toBeUndefined();
    await finish();

    // What the refresh read before the disable is older than the disable: not applied.
    expect(registry.get('hotel-1')).toBeUndefined();
  });

  it('a connection removed while the periodic refresh reads the store is not polled again', async () => {
    const { registry, admin, heldRefresh } = setup();
    await addConnection({ id: 'hotel-1', accessToken: 'token-1' }, admin);

    const finish = await heldRefresh();
    await removeConnection('hotel-1', { keepState: false }, admin);
    await finish();

    expect(await admin.store.get('hotel-1')).toBeUndefined();
    expect(registry.connections().map((c) => c.id)).toEqual([]);
  });

  it('a connection added while the periodic refresh reads the store stays polled', async () => {
    const { registry, admin, heldRefresh } = setup();
    await registry.refresh();

    const finish = await heldRefresh();
    await addConnection({ id: 'hotel-2', accessToken: 'token-2' }, admin);
    expect(registry.get('hotel-2')).toBeDefined();
    await finish();

    expect(registry.get('hotel-2')).toBeDefined();
  });
});
