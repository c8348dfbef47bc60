import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import type { StreamDefinition } from '../../shared/polling/poll-context.ts';
import { startPollLoop } from '../../shared/polling/poll-runner.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import {
  noticingStateStore,
  StateChangeNotices,
} from '../../shared/polling/state-change-notices.ts';
import { FULL_STATE_READ_INTERVAL_MS } from '../../shared/polling/stream-state-view.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { collectingPollDeps } from './poll-harness.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);
const TICK_MS = 100;
const HOUR_MS = 3_600_000;

/**
 * A loop over `connections` hotels' customer streams, all caught up and due in an hour, whose
 * started streams are recorded (and not polled: their connection is gone by then, so a stream
 * found due is tried again at every tick).
 */
async function waitingLoop(connections: number) {
  const clock = new ManualClock(T0);
  // Hourly: no stream falls due again within the minutes these tests run.
  const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer', POLL_INTERVAL: '1h' }, T0);
  let definitions: readonly StreamDefinition[] = Array.from({ length: connections }, (_, i) =>
    streamDefinitions(`hotel-${i}`, settings),
  ).flat();
  const store = new MemoryStateStore();
  for (const definition of [...definitions, ...streamDefinitions('later', settings)]) {
    const state = { ...initialStreamState(definition, T0), initialSyncDone: true };
    await store.saveStream({ ...state, lastPollAt: T0, nextDueAt: T0 + HOUR_MS }, 0);
  }
  const notices = new StateChangeNotices();
  const started: string[] = [];
  const loop = startPollLoop({
    definitions: () => definitions,
    connectionOf: (definition) => {
      started.push(definition.streamId);
      return undefined;
    },
    deps: collectingPollDeps(store, {} as ConnectorClient, clock, settings),
    owner: 'test',
    tickMs: TICK_MS,
    stateChanges: notices,
  });
  const tickDone = async () => {
    while (clock.pendingSleeps === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  };
  const runTicks = async (ticks: number) => {
    for (let tick = 0; tick < ticks; tick++) {
      await clock.advance(TICK_MS);
      await tickDone();
    }
  };
  await tickDone();
  return {
    clock,
    store,
    settings,
    started,
    runTicks,
    /** The store as the admin API of `start` writes it: telling the loop. */
    admin: noticingStateStore(store, notices),
    setDefinitions: (next: readonly StreamDefinition[]) => {
      definitions = next;
    },
    definitions: () => definitions,
    stop: () => loop.stop(),
  };
}

describe('the poll loop told of state changes', () => {
  it('starts a stream reset through a noticing store within a tick, among 3,000 waiting', async () => {
    const loop = await waitingLoop(3_000);
    await loop.runTicks(3);
    expect(loop.started).toEqual([]);
    const stored = (await loop.store.getStream('hotel-1234:customer'))!;
    await loop.admin.saveStream(
      { ...initialStreamState({ ...stored, spec: { entityType: 'customer' } }, loop.clock.now()) },
      stored.version,
    );
    await loop.runTicks(2);
    expect(loop.started).toContain('hotel-1234:customer');
    await loop.stop();
  });

  it('starts a stream deleted through a noticing store (never polled again) within a tick', async () => {
    const loop = await waitingLoop(3_000);
    await loop.runTicks(1);
    await loop.admin.deleteStream('hotel-7:customer');
    await loop.runTicks(2);
    expect(loop.started).toContain('hotel-7:customer');
    await loop.stop();
  });

  it('reads the states of a connection new to the list, and stops trying one gone from it, at the next tick', async () => {
    const loop = await waitingLoop(3_000);
    await loop.runTicks(1);
    // Its state changed untold since the loop's full read (deleted, as a removal does): the
    // loop reads the states of streams new to its list.
    await loop.store.deleteStream('later:customer');
    loop.setDefinitions([...loop.definitions(), ...streamDefinitions('later', loop.settings)]);
    await loop.runTicks(2);
    expect(loop.started.filter((id) => id === 'later:customer').length).toBeGreaterThan(0);
    loop.setDefinitions(loop.definitions().filter((d) => d.connectionId !== 'later'));
    await loop.runTicks(1);
    const tries = loop.started.length;
    await loop.runTicks(3);
    expect(loop.started.length).toBe(tries);
    await loop.stop();
  });

  it('still finds a state changed behind its back within the period of its full reads', async () => {
    const loop = await waitingLoop(3_000);
    await loop.runTicks(1);
    const stored = (await loop.store.getStream('hotel-99:customer'))!;
    // Written straight to the store: nothing tells the loop.
    await loop.store.saveStream({ ...stored, nextDueAt: loop.clock.now() }, stored.version);
    await loop.runTicks(FULL_STATE_READ_INTERVAL_MS / TICK_MS + 2);
    expect(loop.started).toContain('hotel-99:customer');
    await loop.stop();
  }, 30_000);
});
