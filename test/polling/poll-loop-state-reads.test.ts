import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import { startPollLoop } from '../../shared/polling/poll-runner.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { collectingPollDeps } from './poll-harness.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);
const TICK_MS = 100;

/** Full reads of the stream states over `ticks` planner ticks of a loop with `connections` connections, none due. */
async function fullReadsOver(connections: number, ticks: number): Promise<number> {
  const clock = new ManualClock(T0);
  const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer,resource,accountNote' }, T0);
  const definitions = Array.from({ length: connections }, (_, index) =>
    streamDefinitions(`hotel-${index}`, settings),
  ).flat();
  const store = new MemoryStateStore();
  for (const definition of definitions) {
    await store.saveStream({ ...initialStreamState(definition, T0), nextDueAt: T0 + 3_600_000 }, 0);
  }
  let reads = 0;
  const listStreams = store.listStreams.bind(store);
  store.listStreams = () => {
    reads += 1;
    return listStreams();
  };
  const loop = startPollLoop({
    definitions: () => definitions,
    // Nothing is due, so no stream is polled and no client is called.
    deps: collectingPollDeps(store, {} as ConnectorClient, clock, settings),
    owner: 'test',
    tickMs: TICK_MS,
  });
  // The first tick runs at once; each advance lets one more run.
  const tickDone = async () => {
    while (clock.pendingSleeps === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  };
  for (let tick = 1; tick < ticks; tick++) {
    await tickDone();
    await clock.advance(TICK_MS);
  }
  await tickDone();
  await loop.stop();
  return reads;
}

describe('the poll loop’s reads of stream states', () => {
  it('reads every state once a minute, with a few connections or hundreds', async () => {
    // Ticks of 100 ms: the 601st runs at 60 s.
    expect(await fullReadsOver(4, 600)).toBe(1);
    expect(await fullReadsOver(4, 601)).toBe(2);
    expect(await fullReadsOver(300, 12)).toBe(1);
    expect(await fullReadsOver(300, 601)).toBe(2);
  }, 30_000);
});

describe('the poll loop when reading the stream states fails', () => {
  it('tries again after a doubling wait, not at every tick, and reads within one step once the store answers', async () => {
    const clock = new ManualClock(T0);
    const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer' }, T0);
    const definitions = streamDefinitions('hotel', settings);
    const store = new MemoryStateStore();
    for (const definition of definitions)
      await store.saveStream(
        { ...initialStreamState(definition, T0), nextDueAt: T0 + 3_600_000 },
        0,
      );
    let failing = true;
    let reads = 0;
    const listStreams = store.listStreams.bind(store);
    store.listStreams = async () => {
      reads += 1;
      if (failing) throw new Error('DynamoDB Query on table t failed: IO error');
      return listStreams();
    };
    const errors: unknown[] = [];
    const loop = startPollLoop({
      definitions: () => definitions,
      deps: collectingPollDeps(store, {} as ConnectorClient, clock, settings),
      owner: 'test',
      tickMs: TICK_MS,
      onError: (error, during) => errors.push(`${during}: ${(error as Error).message}`),
    });
    const tickDone = async () => {
      while (clock.pendingSleeps === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    };
    const runTicks = async (ticks: number) => {
      for (let tick = 0; tick < ticks; tick++) {
        await tickDone();
        await clock.advance(TICK_MS);
      }
      await tickDone();
    };
    // 4 s of 100 ms ticks: tries at 0, 0.1, 0.3, 0.7, 1.5 and 3.1 s, not 40.
    await runTicks(40);
    expect(reads).toBe(6);
    expect(errors).toEqual(Array(6).fill('state read: DynamoDB Query on table t failed: IO error'));
    // Reads work again: the next try (at 6.3 s) reads, within one step, then once a minute.
    failing = false;
    await runTicks(23);
    expect(reads).toBe(7);
    await runTicks(10);
    expect(reads).toBe(7);
    expect(errors).toHaveLength(6);
    await loop.stop();
  });
});
