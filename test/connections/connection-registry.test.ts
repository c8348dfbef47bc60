import { describe, expect, it } from 'vitest';
import { ConnectionRegistry } from '../../shared/connections/connection-registry.ts';
import { LocalKeyFileProvider } from '../../shared/connections/local-key-file.ts';
import { MemoryConnectionStore } from '../../shared/connections/memory-connection-store.ts';
import { createTokenCipher } from '../../shared/connections/token-cipher.ts';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import type { ConnectorConfig } from '../../shared/connector/connector-config.ts';
import { pollSettingsFromEnv } from '../../shared/polling/poll-settings.ts';

const settings = pollSettingsFromEnv(
  { POLL_ENTITIES: 'customer,resource', POLL_INTERVAL: '1m' },
  0,
);
const cipher = createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 9)));

function setup(onError?: (id: string, error: unknown) => void) {
  const store = new MemoryConnectionStore();
  const configs: ConnectorConfig[] = [];
  const closed: string[] = [];
  const registry = new ConnectionRegistry({
    store,
    cipher,
    settings,
    deployment: { baseUrl: 'http://connector.test', clientToken: 'ct', client: 'test' },
    createClient: (config) => {
      configs.push(config);
      return {
        close: async () => void closed.push(config.accessToken),
      } as unknown as ConnectorClient;
    },
    fixed: [],
    ...(onError ? { onError } : {}),
  });
  const add = async (id: string, token: string, extra: object = {}) =>
    store.create({
      id,
      enabled: true,
      createdAt: '2026-01-01T00:00:00.000Z',
      accessToken: await cipher.seal(id, token),
      ...extra,
    });
  return { store, registry, configs, closed, add };
}

describe('the registry of polled connections', () => {
  it('picks up a stored connection on refresh, with its own client on the deployment endpoint and its own token', async () => {
    const { registry, configs, add } = setup();
    await add('hotel-1', 'token-1', { entities: ['customer'], intervalMs: 30_000 });
    await registry.refresh();

    expect(registry.definitions().map((d) => `${d.streamId}/${d.intervalMs}`)).toEqual([
      'hotel-1:customer/30000',
    ]);
    expect(configs).toEqual([
      {
        baseUrl: 'http://connector.test',
        clientToken: 'ct',
        client: 'test',
        accessToken: 'token-1',
      },
    ]);
  });

  it('drops a disabled or removed connection, aborting its polls and closing its client', async () => {
    const { store, registry, closed, add } = setup();
    await add('hotel-1', 'token-1');
    await add('hotel-2', 'token-2');
    await registry.refresh();
    const signal = registry.get('hotel-1')!.signal;

    await store.setEnabled('hotel-1', false);
    await store.remove('hotel-2');
    await registry.refresh();

    expect(signal.aborted).toBe(true);
    expect(registry.connections()).toEqual([]);
    expect(closed.sort()).toEqual(['token-1', 'token-2']);
  });

  it('leaves out a connection whose token does not open, and reports it without the token', async () => {
    const { store, registry } = setup();
    const errors: string[] = [];
    const sealed = await cipher.seal('other', 'token-x');
    await store.create({ id: 'moved', enabled: true, createdAt: 'x', accessToken: sealed });
    const reporting = new ConnectionRegistry({
      ...(registry as unknown as { deps: ConstructorParameters<typeof ConnectionRegistry>[0] })
        .deps,
      onError: (id, error) => errors.push(`${id}: ${(error as Error).message}`),
    });
    await reporting.refresh();

    expect(reporting.connections()).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).not.toContain('token-x');
  });
});

describe('the registry told of one connection', () => {
  it('adds, drops and re-adds a single connection without a full read', async () => {
    const { store, registry, add } = setup();
    await registry.refresh();
    await add('hotel-1', 'token-1');
    let listings = 0;
    const listPage = store.listPage.bind(store);
    store.listPage = (options) => {
      listings += 1;
      return listPage(options);
    };

    await registry.refreshConnection('hotel-1');
    expect(registry.get('hotel-1')).toBeDefined();
    await store.setEnabled('hotel-1', false);
    await registry.refreshConnection('hotel-1');
    expect(registry.get('hotel-1')).toBeUndefined();
    await store.setEnabled('hotel-1', true);
    await registry.refreshConnection('hotel-1');
    expect(registry.get('hotel-1')).toBeDefined();
    expect(listings).toBe(0);
  });
});
