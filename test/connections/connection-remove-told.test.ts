import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  addConnection,
  type ConnectionAdminDeps,
  removeConnection,
  setConnectionEnabled,
} from '../../shared/connections/connection-admin.ts';
import { ConnectionRegistry } from '../../shared/connections/connection-registry.ts';
import { LocalKeyFileProvider } from '../../shared/connections/local-key-file.ts';
import { MemoryConnectionStore } from '../../shared/connections/memory-connection-store.ts';
import { createTokenCipher } from '../../shared/connections/token-cipher.ts';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import { pollingChangeLine } from '../../shared/local/local-connections.ts';
import { pollSettingsFromEnv } from '../../shared/polling/poll-settings.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';

/** The admin operations of a local run, wired to its registry, and the lines the registry tells. */
async function adminWithRegistry() {
  const store = new MemoryConnectionStore();
  const cipher = createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 3)));
  const told: string[] = [];
  const registry = new ConnectionRegistry({
    store,
    cipher,
    settings: pollSettingsFromEnv({}, Date.UTC(2026, 0, 1)),
    deployment: { baseUrl: 'http://connector.test', clientToken: 'ct', client: 'test' },
    createClient: () => ({ close: async () => undefined }) as unknown as ConnectorClient,
    fixed: [],
    onPolling: (connection, change) => told.push(pollingChangeLine(connection, change)),
  });
  await registry.refresh();
  const deps: ConnectionAdminDeps = {
    store,
    cipher,
    state: new MemoryStateStore(),
    clock: new ManualClock(Date.UTC(2026, 0, 1)),
    configured: [],
    onChange: (id) => registry.refreshConnection(id),
  };
  return { deps, told, registry };
}

describe('the lines a local run logs as a connection leaves', () => {
  it('says removed when connections remove deleted it, after the disable it starts with', async () => {
    const { deps, told, registry } = await adminWithRegistry();
    await addConnection({ id: 'hotel-1', accessToken: 'token-1', entities: ['customer'] }, deps);
    await removeConnection('hotel-1', { keepState: false }, deps);
    await registry.refresh();
    expect(told.slice(1)).toEqual([
      'connection hotel-1 is no longer polled (disabled)',
      'connection hotel-1 is no longer polled (removed)',
    ]);
  });

  it('says disabled only when connections disable left it stored', async () => {
    const { deps, told, registry } = await adminWithRegistry();
    await addConnection({ id: 'hotel-1', accessToken: 'token-1', entities: ['customer'] }, deps);
    await setConnectionEnabled('hotel-1', false, deps);
    await registry.refresh();
    expect(told.slice(1)).toEqual(['connection hotel-1 is no longer polled (disabled)']);
  });

  it('says removed once for a connection disabled, enabled again and then removed', async () => {
    const { deps, told } = await adminWithRegistry();
    await addConnection({ id: 'hotel-1', accessToken: 'token-1', entities: ['customer'] }, deps);
    await setConnectionEnabled('hotel-1', false, deps);
    await setConnectionEnabled('hotel-1', true, deps);
    await removeConnection('hotel-1', { keepState: true }, deps);
    expect(told.filter((line) => line.endsWith('(removed)'))).toEqual([
      'connection hotel-1 is no longer polled (removed)',
    ]);
  });
});
