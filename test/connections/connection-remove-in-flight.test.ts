import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { startPollLoop } from '../../shared/polling/poll-runner.ts';
import { pollSettingsFromEnv } from '../../shared/polling/poll-settings.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { collectingPollDeps, POLL_TEST_START_MS } from '../polling/poll-harness.ts';
import { holdSnapshotWrites } from '../support/held-snapshot-writes.ts';

/*
 * `start` wires the admin API's connection changes to the registry the poll loop reads. README:
 * `connections remove` "deletes the token, stream state, snapshots", and only `--keep-state`
 * makes re-adding the id resume; so nothing a poll of the removed connection was still writing
 * may land after the removal answered.
 */

let sim: RunningSimulator;
const clock = new ManualClock(POLL_TEST_START_MS);

beforeAll(async () => {
  sim = await startSimulator({ seed: 5, size: 'small', clock, rateLimit: false });
});
afterAll(async () => {
  await sim?.close();
});

/** A promise and its resolve. */
describe('a local connection removed while a poll of it is storing a page', () => {
  it('has no stream state or snapshot of it left once the removal answered', async () => {
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'customer', POLL_INTERVAL: '1m', INITIAL_SYNC: 'baseline' },
      POLL_TEST_START_MS,
    );
    const state = new MemoryStateStore();
    const connections = new MemoryConnectionStore();
    const cipher = createTokenCipher(new LocalKeyFileProvider(Buffer.alloc(32, 3)));
    // The first sync's first page blocks in its snapshot write until released.
    const held = holdSnapshotWrites(state);
    const registry = new ConnectionRegistry({
      store: connections,
      cipher,
      settings,
      deployment: { baseUrl: sim.url, clientToken: sim.tokens.clientToken, client: 'test' },
      createClient: (config) => createConnectorClient({ ...config, rateLimit: false }, { clock }),
      fixed: [],
    });
    const admin: ConnectionAdminDeps = {
      store: connections,
      cipher,
      state,
      clock,
      configured: [],
      onChange: (id) => registry.refreshConnection(id),
    };
    await addConnection(
      { id: 'hotel-1', accessToken: sim.tokens.accessToken, entities: ['customer'] },
      admin,
    );
    const loop = startPollLoop({
      definitions: () => registry.definitions(),
      connectionOf: (definition) => registry.get(definition.connectionId),
      deps: collectingPollDeps(state, registry.get('hotel-1')!.client, clock, settings),
      owner: 'test',
      tickMs: 1000,
    });
    await held.storing;
    const signal = registry.get('hotel-1')!.signal;
    const removal = removeConnection('hotel-1', { keepState: false }, admin);
    // The page's write goes on once the removal answered, or (a removal that waits for the
    // poll) once the connection's polls were told to stop and the removal still waits.
    let answered = false;
    void removal.then(() => {
      answered = true;
      held.release();
    });
    while (!signal.aborted) await new Promise((resolve) => setImmediate(resolve));
    for (let turn = 0; turn < 50 && !answered; turn++)
      await new Promise((resolve) => setImmediate(resolve));
    held.release();
    expect((await removal).removed).toBe(true);
    await loop.stop();

    expect(await state.listStreams({ connectionId: 'hotel-1' })).toEqual([]);
    const left = [];
    for await (const page of state.scanSnapshots('hotel-1:customer')) left.push(...page);
    expect(left).toEqual([]);
    await registry.close();
  });
});
