import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import type { BacklogGauge } from '../../shared/polling/backlog-gauge.ts';
import { startPollLoop } from '../../shared/polling/poll-runner.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { collectingPollDeps } from './poll-harness.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);
const TICK_MS = 100;
const CONNECTIONS = 40;

describe('the poll loop while the undelivered backlog is above its bound', () => {
  it('starts no first sync until the backlog drains, instead of polling each one again at every free slot', async () => {
    const clock = new ManualClock(T0);
    const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer', INITIAL_SYNC: 'emit' }, T0);
    const definitions = Array.from({ length: CONNECTIONS }, (_, index) =>
      streamDefinitions(`hotel-${index}`, settings),
    ).flat();
    const store = new MemoryStateStore();
    // Each in its first sync, paused by the backlog at a page boundary: due again at once.
    for (const definition of definitions)
      await store.saveStream({ ...initialStreamState(definition, T0), nextDueAt: T0 }, 0);
    let saves = 0;
    const saveStream = store.saveStream.bind(store);
    store.saveStream = (state, version) => {
      saves += 1;
      return saveStream(state, version);
    };
    let above = true;
    const backlog: BacklogGauge = { aboveBound: async () => above };
    const loop = startPollLoop({
      definitions: () => definitions,
      // Nothing may reach the connector while the backlog holds: any call fails the stream.
      deps: { ...collectingPollDeps(store, {} as ConnectorClient, clock, settings), backlog },
      owner: 'test',
      tickMs: TICK_MS,
    });
    const tickDone = async () => {
      while (clock.pendingSleeps === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      await new Promise((resolve) => setTimeout(resolve, 20));
    };
    for (let tick = 0; tick < 10; tick++) {
      await tickDone();
      await clock.advance(TICK_MS);
    }
    await tickDone();
    expect(saves).toBe(0);
    above = false;
    await clock.advance(TICK_MS);
    await tickDone();
    await loop.stop();
    expect(saves).toBeGreaterThan(0);
  });
});
