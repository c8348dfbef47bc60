import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  addConnection,
  type ConnectionAdminDeps,
  removeConnection,
} from '../../shared/connections/connection-admin.ts';
import { ConnectionRegistry } from '../../shared/connections/connection-registry.ts';
import { LocalKeyFileProvider } from '../../shared/connections/local-key-file.ts';
import { MemoryConnectionStore } from '../../shared/connections/memory-connection-store.ts';
import { createTokenCipher } from '../../shared/connections/token-cipher.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import type { HttpTransport, RawResponse } from '../../shared/connector/http-transport.ts';
import { pollSettingsFromEnv } from '../../shared/polling/poll-settings.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { createConnectionWriteThrough } from '../../shared/writes/connection-write-through.ts';
import { registryWritableConnection } from '../../shared/writes/registry-writable-connection.ts';

const START_MS = Date.parse('2026-03-01T00:00:00Z');

/*
 * README: a `remove` answers once nothing uses the connection's token any more. A call through
 * the connector proxy of `start` is one such use: the removal waits for it, and a call after it
 * is refused unsent.
 */
describe('a connection removed while a proxied call of it is in flight', () => {
  it('answers the removal only after the call, and sends no call after it', async () => {
    const clock = new ManualClock(START_MS);
    const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer' }, START_MS);
    const connections = new MemoryConnectionStore();
    const cipher = createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 6)));
    const deployment = { baseUrl: 'http://connector.invalid', clientToken: 'ct', client: 'test' };
    const registry = new ConnectionRegistry({
      store: connections,
      cipher,
      settings,
      deployment,
      createClient: (config) => createConnectorClient({ ...config, rateLimit: false }, { clock }),
      fixed: [],
    });
    const admin: ConnectionAdminDeps = {
      store: connections,
      cipher,
      state: new MemoryStateStore(),
      clock,
      configured: [],
      onChange: (id) => registry.refreshConnection(id),
    };
    await addConnection(
      { id: 'hotel-1', accessToken: 'hotel-1-token', entities: ['customer'] },
      admin,
    );

    // The connector answers the first call when the test says so.
    const sent: string[] = [];
    let answer: (response: RawResponse) => void = () => undefined;
    const transport: HttpTransport = {
      postJson: (_url, text) => {
        sent.push(JSON.parse(text).AccessToken);
        return new Promise((resolve) => {
          answer = resolve;
        });
      },
      close: async () => undefined,
    };
    const proxy = createConnectionWriteThrough({
      connectionFor: (id) =>
        registryWritableConnection(id, { registry, store: connections, defaultId: 'local' }),
      credentialsOf: () => 'test',
      publisher: { publish: async () => ({ published: 0, thinned: 0, failures: [] }) },
      state: admin.state,
      clock,
      transport,
    });
    const call = proxy.forward('taxEnvironments/getAll', {}, 'hotel-1');
    while (sent.length === 0) await new Promise((resolve) => setImmediate(resolve));

    let removed = false;
    const removal = removeConnection('hotel-1', { keepState: true }, admin).then(() => {
      removed = true;
    });
    for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(removed).toBe(false);

    answer({ status: 200, headers: {}, text: JSON.stringify({ TaxEnvironments: [] }) });
    expect((await call).status).toBe(200);
    await removal;
    expect(removed).toBe(true);

    await expect(proxy.forward('taxEnvironments/getAll', {}, 'hotel-1')).rejects.toThrow(
      'connection hotel-1 does not exist',
    );
    expect(sent).toEqual(['hotel-1-token']);
    await proxy.close();
    await registry.close();
  });
});
