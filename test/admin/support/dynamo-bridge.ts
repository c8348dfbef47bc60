import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { AdminDeps } from '../../../shared/admin/admin-deps.ts';
// The admin API's composition-root exports, as `change-bridge start` builds its store.
import { DynamoDbBackfillJobStore } from '../../../shared/admin/index.ts';
import { handleAdminRequest } from '../../../shared/admin/router.ts';
import { enabledConnectionStreams } from '../../../shared/connections/connection-streams.ts';
import { DynamoDbConnectionStore } from '../../../shared/connections/dynamodb-connection-store.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../../shared/local/dynamodb.ts';
import { DynamoDbStateStore } from '../../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../../shared/state/dynamodb-table.ts';
import type { BackfillPass, StateStore } from '../../../shared/state/state-store.ts';
import { streamState } from '../../state/state-store.contract.ts';
import { type AdminHarness, createAdminHarness, HARNESS_START_MS } from './harness.ts';

/** Where the hotel's live polls had read when a backfill starts: its passes end here. */
export const SYNCED_UNTIL = new Date(HARNESS_START_MS - 60_000).toISOString();

/**
 * The admin API with its state, backfill jobs and connections in one new dynalite table named
 * `tableName` (as `change-bridge start` keeps them), and a stored connection `hotel-1`
 * (customers and resources) whose two streams completed their first sync. The caller closes
 * the returned harness.
 */
export async function bridgeWithHotel(dynamo: LocalDynamoDb, tableName: string) {
  const harness: AdminHarness = createAdminHarness();
  await createStateTable(dynamo.client, tableName);
  const { clock, settings } = harness;
  const state = new DynamoDbStateStore({ client: dynamo.client, tableName, clock });
  const connections = new DynamoDbConnectionStore({ client: dynamo.client, tableName });
  const mainStreams = harness.streams;
  const deps: AdminDeps = {
    ...harness.deps,
    state,
    backfills: new DynamoDbBackfillJobStore({ client: dynamo.client, tableName, clock }),
    streams: async () => [
      ...mainStreams,
      ...(await enabledConnectionStreams(connections, settings)),
    ],
    connections: { ...harness.deps.connections!, store: connections, state },
  };
  const call = (method: string, path: string, body?: unknown) =>
    handleAdminRequest({ method, path, query: {}, body }, deps);
  const added = await call('POST', '/connections', {
    id: 'hotel-1',
    accessToken: 'hotel-access-token-4b7d',
    entities: 'customer,resource',
  });
  expect(added.status).toBe(201);
  for (const streamId of ['hotel-1:customer', 'hotel-1:resource']) {
    await state.saveStream(
      streamState(streamId, { initialSyncDone: true, watermark: SYNCED_UNTIL }),
      0,
    );
  }
  return { harness, deps, state, call };
}

/** Saves a stream's backfill pass as its poller does after a page: counters with the cursor. */
export async function savePass(
  state: StateStore,
  streamId: string,
  change: Partial<BackfillPass>,
): Promise<void> {
  const stored = await state.getStream(streamId);
  if (stored?.backfill?.kind !== 'pass') throw new Error(`${streamId} has no backfill pass`);
  await state.saveStream(
    { ...stored, backfill: { ...stored.backfill, ...change } },
    stored.version,
  );
}

/**
 * For a test file: one dynalite for the file, and a maker of {@link bridgeWithHotel}s, each in
 * a table of its own (`<name>-<pid>-<n>`) and closed after its test.
 */
export function useDynamoBridges(name: string): () => ReturnType<typeof bridgeWithHotel> {
  let dynamo: LocalDynamoDb | undefined;
  let tables = 0;
  let harness: AdminHarness | undefined;
  beforeAll(async () => {
    dynamo = await startLocalDynamoDb();
  });
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  afterAll(async () => {
    await dynamo?.close();
  });
  return async () => {
    tables += 1;
    const bridge = await bridgeWithHotel(dynamo!, `${name}-${process.pid}-${tables}`);
    harness = bridge.harness;
    return bridge;
  };
}
