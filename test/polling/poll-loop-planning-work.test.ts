import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import { startPollLoop } from '../../shared/polling/poll-runner.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import type { StreamState } from '../../shared/state/state-store.ts';
import { collectingPollDeps } from './poll-harness.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);
const TICK_MS = 100;
const DUE = ['due-0', 'due-1', 'due-2'];

/**
 * Reads of stream states' fields by the loop over ticks 2 to `ticks` (the first reads them all,
 * to learn what is due), with `waiting` streams due in an hour and three due now, whose
 * connection is gone (they stay due, and the loop looks for them at every tick).
 */
async function stateReadsOver(waiting: number, ticks: number) {
  const clock = new ManualClock(T0);
  const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer' }, T0);
  const ids = [...Array.from({ length: waiting }, (_, i) => `hotel-${i}`), ...DUE];
  const definitions = ids.flatMap((id) => streamDefinitions(id, settings));
  const store = new MemoryStateStore();
  for (const definition of definitions) {
    const dueAt = DUE.includes(definition.connectionId) ? T0 - 1 : T0 + 3_600_000;
    await store.saveStream({ ...initialStreamState(definition, T0), nextDueAt: dueAt }, 0);
  }
  let reads = 0;
  const listStreams = store.listStreams.bind(store);
  // Every state the loop learns of counts the reads of its fields.
  const counted = (state: StreamState): StreamState =>
    new Proxy(state, {
      get(target, key, receiver) {
        reads += 1;
        return Reflect.get(target, key, receiver);
      },
    });
  store.listStreams = async (...args) => (await listStreams(...args)).map(counted);
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
  });
  const tickDone = async () => {
    while (clock.pendingSleeps === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  };
  await tickDone();
  reads = 0;
  started.length = 0;
  for (let tick = 2; tick <= ticks; tick++) {
    await clock.advance(TICK_MS);
    await tickDone();
  }
  await loop.stop();
  return { reads, started };
}

describe('the poll loop’s planning work per tick', () => {
  it('reads the states of the streams due, not of those waiting, however many wait', async () => {
    // 3,000 and 12,000 streams: no full read of the states falls within these ten ticks.
    const few = await stateReadsOver(3_000, 11);
    const many = await stateReadsOver(12_000, 11);
    // The three due streams are tried at every tick in both.
    const tries = Array.from({ length: 10 }, () => DUE.map((id) => `${id}:customer`)).flat();
    expect(few.started).toEqual(tries);
    expect(many.started).toEqual(tries);
    expect(many.reads).toBe(few.reads);
    // A few fields of each due stream per tick; walking every stream read 3,000 × 4 a tick.
    expect(few.reads).toBeLessThan(10 * DUE.length * 20);
  }, 60_000);
});
