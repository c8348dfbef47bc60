import { describe, expect, it } from 'vitest';
import { readPollLambdaEnv } from '../../functions/poll-env.ts';
import { AddConnectionInputSchema } from '../../shared/connections/connection-admin.ts';
import {
  ConnectionRegistry,
  type ConnectionRegistryDeps,
} from '../../shared/connections/connection-registry.ts';
import { streamsOfConnection } from '../../shared/connections/connection-streams.ts';
import { LocalKeyFileProvider } from '../../shared/connections/local-key-file.ts';
import { MemoryConnectionStore } from '../../shared/connections/memory-connection-store.ts';
import { createTokenCipher } from '../../shared/connections/token-cipher.ts';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import { pollingChangeLine } from '../../shared/local/local-connections.ts';
import type { StreamDefinition } from '../../shared/polling/poll-context.ts';

const PRODUCT = '5a1c6b0e-2f4d-4c1e-9d33-7b2a8e6f4c10';
const EXPORT = '0f7b1e2c-3a4d-4b5e-8c6f-9d0a1b2c3d4e';
const OWN_EXPORT = '1e2d3c4b-5a69-4788-9a0b-c1d2e3f40516';
const env = {
  STATE_TABLE_NAME: 'state',
  POLL_JOB_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/poll-jobs',
  POLL_ENTITIES: 'customer,productPrice,export',
  POLL_PRODUCT_IDS: `${PRODUCT}@Europe/Prague`,
  POLL_EXPORT_IDS: EXPORT,
};
const config = readPollLambdaEnv(env, Date.UTC(2026, 0, 1));
const cipher = createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 5)));

/** What the product price and export streams of `streams` follow. */
function followed(streams: readonly StreamDefinition[]) {
  return {
    products: streams
      .find((d) => d.spec.entityType === 'productPrice')
      ?.products?.map((p) => `${p.productId}@${p.timeZone}`),
    exports: streams.find((d) => d.spec.entityType === 'export')?.trackedIds,
  };
}

/** Stores `hotel-1` (token `token-1`) with `extra` settings, registered at `createdAt`. */
async function storeHotel(
  store: MemoryConnectionStore,
  extra: object,
  createdAt = '2026-01-01T00:00:00.000Z',
): Promise<void> {
  await store.create({
    id: 'hotel-1',
    enabled: true,
    createdAt,
    accessToken: await cipher.seal('hotel-1', 'token-1'),
    ...extra,
  });
}

/** A registry of `store` with the deployment's `tracked` targets (default POLL_*_IDS') and `hooks`. */
function registryOf(
  store: MemoryConnectionStore,
  hooks: Pick<ConnectionRegistryDeps, 'onWarning' | 'onPolling'> = {},
  tracked = config.tracked,
): ConnectionRegistry {
  return new ConnectionRegistry({
    store,
    cipher,
    settings: config.settings,
    tracked,
    deployment: { baseUrl: 'http://connector.test', clientToken: 'ct', client: 'test' },
    createClient: () => ({ close: async () => undefined }) as unknown as ConnectorClient,
    fixed: [],
    ...hooks,
  });
}

/** The local registry of a store holding `hotel-1` with `extra` settings, refreshed once. */
async function registryStreams(extra: object): Promise<readonly StreamDefinition[]> {
  const store = new MemoryConnectionStore();
  await storeHotel(store, extra);
  const registry = registryOf(store);
  await registry.refresh();
  return registry.definitions();
}

describe('a stored connection and POLL_PRODUCT_IDS / POLL_EXPORT_IDS', () => {
  it('the add refusal of an empty list says that leaving it out follows POLL_PRODUCT_IDS', () => {
    const refused = AddConnectionInputSchema.safeParse({
      id: 'hotel-1',
      accessToken: 't',
      productIds: '',
    });
    expect(refused.error?.issues[0]?.message).toContain('leave it out to follow POLL_PRODUCT_IDS');
  });

  it('a connection that names no products or exports follows the deployment ones, locally and in AWS', async () => {
    const want = { products: [`${PRODUCT}@Europe/Prague`], exports: [EXPORT] };
    expect(followed(await registryStreams({}))).toEqual(want);
    // The planner, the poller and the admin API in AWS (functions/*) pass the config's targets.
    expect(config.tracked).toEqual({
      exportIds: [EXPORT],
      products: [{ productId: PRODUCT, timeZone: 'Europe/Prague' }],
    });
    const stored = { id: 'hotel-1', enabled: true, createdAt: '2026-01-01T00:00:00.000Z' };
    expect(followed(streamsOfConnection(stored, config.settings, config.tracked))).toEqual(want);
  });

  it('a connection stored with a type named twice (before that was refused) has one stream of it', () => {
    const stored = { id: 'hotel-1', entities: ['customer' as const, 'customer' as const] };
    expect(streamsOfConnection(stored, config.settings).map((d) => d.streamId)).toEqual([
      'hotel-1:customer',
    ]);
  });

  it('a connection that names its own exports follows those, and the deployment products', async () => {
    expect(followed(await registryStreams({ exportIds: [OWN_EXPORT] }))).toEqual({
      products: [`${PRODUCT}@Europe/Prague`],
      exports: [OWN_EXPORT],
    });
  });
});

describe('a stored connection whose export or productPrice stream follows nothing', () => {
  /** The warnings a registry says as `hotel-1` (with `extra` settings) joins, `tracked` the deployment's. */
  async function warningsAsItJoins(extra: object, tracked: typeof config.tracked = {}) {
    const store = new MemoryConnectionStore();
    await storeHotel(store, extra);
    const warnings: [string, string][] = [];
    const onWarning = (id: string, message: string) => warnings.push([id, message]);
    const registry = registryOf(store, { onWarning }, tracked);
    await registry.refresh();
    // A later refresh of the same registration says nothing again.
    await registry.refresh();
    await registry.close();
    return warnings;
  }

  it('is said once as the connection joins, naming it and what would name the ids', async () => {
    expect(await warningsAsItJoins({ entities: ['customer', 'export', 'productPrice'] })).toEqual([
      [
        'hotel-1',
        'connection hotel-1: export is polled, but neither the connection (--export-ids) nor POLL_EXPORT_IDS names an export: its export stream polls nothing',
      ],
      [
        'hotel-1',
        'connection hotel-1: productPrice is polled, but neither the connection (--product-ids) nor POLL_PRODUCT_IDS names a product: its productPrice stream polls nothing',
      ],
    ]);
  });

  it('is not said when the connection or the deployment names them', async () => {
    const entities = ['export', 'productPrice'];
    expect(await warningsAsItJoins({ entities }, config.tracked)).toEqual([]);
    expect(
      await warningsAsItJoins({
        entities,
        exportIds: [OWN_EXPORT],
        productIds: [`${PRODUCT}@Europe/Prague`],
      }),
    ).toEqual([]);
    expect(await warningsAsItJoins({ entities: ['customer'] })).toEqual([]);
  });
});

describe('what a refresh changes of the polled connections', () => {
  it('is told for each connection: added, disabled, enabled again, added anew after a remove, removed', async () => {
    const store = new MemoryConnectionStore();
    const stored = (createdAt: string) =>
      storeHotel(store, { entities: ['customer', 'resource'], intervalMs: 60_000 }, createdAt);
    const told: string[] = [];
    const registry = registryOf(store, {
      onPolling: (connection, change) => told.push(pollingChangeLine(connection, change)),
    });
    await registry.refresh();
    await stored('2026-01-01T00:00:00.000Z');
    await registry.refresh();
    await registry.refresh();
    await store.setEnabled('hotel-1', false);
    await registry.refresh();
    await store.setEnabled('hotel-1', true);
    await registry.refresh();
    await store.remove('hotel-1');
    await stored('2026-01-02T00:00:00.000Z');
    await registry.refresh();
    await store.remove('hotel-1');
    await registry.refresh();
    await registry.close();
    expect(told).toEqual([
      'connection hotel-1 is polled: customer, resource every 1m',
      'connection hotel-1 is no longer polled (disabled)',
      'connection hotel-1 is polled: customer, resource every 1m',
      'connection hotel-1 is polled again, as changed: customer, resource every 1m',
      'connection hotel-1 is no longer polled (removed)',
    ]);
  });
});
