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

  it('starts no caught-up stream hours behind (its next window is catch-up work) until the backlog drains', async () => {
    const clock = new ManualClock(T0);
    const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer' }, T0);
    const definitions = Array.from({ length: CONNECTIONS }, (_, index) =>
      streamDefinitions(`hotel-${index}`, settings),
    ).flat();
    const store = new MemoryStateStore();
    // Caught up, no window in progress, but two hours since their last poll (a stopped bridge).
    for (const definition of definitions)
      await store.saveStream(
        {
          ...initialStreamState(definition, T0),
          initialSyncDone: true,
          watermark: new Date(T0 - 2 * 60 * 60_000).toISOString(),
          nextDueAt: T0,
        },
        0,
      );
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
    // Before, each was started as a live poll (no window in progress), planned its catch-up
    // window, found the backlog high and saved it: 40 polls the gauge would have held.
    expect(saves).toBe(0);
    above = false;
    await clock.advance(TICK_MS);
    await tickDone();
    await loop.stop();
    expect(saves).toBeGreaterThan(0);
  });

  it('starts live streams without waiting for the gauge, and asks it only when a stream could wait for the backlog', async () => {
    const clock = new ManualClock(T0);
    const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer' }, T0);
    const definitions = streamDefinitions('hotel-0', settings);
    const store = new MemoryStateStore();
    // Caught up and parked: its poll makes no request, only a save (due again at its interval).
    for (const definition of definitions)
      await store.saveStream(
        {
          ...initialStreamState(definition, T0),
          initialSyncDone: true,
          watermark: new Date(T0 - 60_000).toISOString(),
          parked: true,
          nextDueAt: T0,
        },
        0,
      );
    let saves = 0;
    const saveStream = store.saveStream.bind(store);
    store.saveStream = (state, version) => {
      saves += 1;
      return saveStream(state, version);
    };
    // A gauge that never answers (the local queue server stalled under load).
    let asked = 0;
    const backlog: BacklogGauge = {
      aboveBound: () => {
        asked += 1;
        return new Promise<boolean>(() => undefined);
      },
    };
    const loop = startPollLoop({
      definitions: () => definitions,
      deps: { ...collectingPollDeps(store, {} as ConnectorClient, clock, settings), backlog },
      owner: 'test',
      tickMs: TICK_MS,
    });
    for (let step = 0; step < 50 && saves === 0; step++)
      await new Promise((resolve) => setTimeout(resolve, 2));
    expect(saves).toBe(definitions.length);
    expect(asked).toBe(0);
    await loop.stop();
  });

  it('starts the first syncs a slow gauge clears, even when its answer comes ticks later', async () => {
    const clock = new ManualClock(T0);
    const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer', INITIAL_SYNC: 'emit' }, T0);
    const definitions = streamDefinitions('hotel-0', settings);
    const store = new MemoryStateStore();
    for (const definition of definitions)
      await store.saveStream({ ...initialStreamState(definition, T0), nextDueAt: T0 }, 0);
    // Each poll that starts finds the stream leased (no request), then the loop re-reads it.
    const started: string[] = [];
    const getStream = store.getStream.bind(store);
    store.getStream = (id) => {
      started.push(id);
      return getStream(id);
    };
    store.acquireLease = async () => null;
    const answers: ((high: boolean) => void)[] = [];
    const backlog: BacklogGauge = {
      aboveBound: () => new Promise<boolean>((resolve) => answers.push(resolve)),
    };
    const loop = startPollLoop({
      definitions: () => definitions,
      deps: { ...collectingPollDeps(store, {} as ConnectorClient, clock, settings), backlog },
      owner: 'test',
      tickMs: TICK_MS,
    });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
    await settle();
    for (let tick = 0; tick < 3; tick++) {
      await clock.advance(TICK_MS);
      await settle();
    }
    // One question at a time, however many ticks it takes.
    expect(answers).toHaveLength(1);
    expect(started).toEqual([]);
    answers[0]!(false);
    await settle();
    await loop.stop();
    expect(started).toContain(definitions[0]!.streamId);
  });
});
