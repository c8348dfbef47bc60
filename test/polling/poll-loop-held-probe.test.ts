import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import type { ConnectorClient } from '../../shared/connector/connector-client.ts';
import type { HeldStream } from '../../shared/polling/poll-loop-options.ts';
import { startPollLoop } from '../../shared/polling/poll-runner.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { collectingPollDeps } from './poll-harness.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);
const TICK_MS = 250;

describe('the poll loop’s probe of the store while streams are held', () => {
  it('keeps the backoff of a stream whose own writes fail while the store takes the probe', async () => {
    const clock = new ManualClock(T0);
    const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer', POLL_INTERVAL: '1s' }, T0);
    const definitions = streamDefinitions('main', settings);
    // Every read and write of this stream fails (its own trouble, not a full disk's); the
    // probe's write goes through.
    const store = new MemoryStateStore();
    const refused = async () => {
      throw new Error('DynamoDB PutItem on table t failed: item of this stream refused');
    };
    store.getStream = refused;
    store.saveStream = refused;
    let probes = 0;
    const held: HeldStream[] = [];
    const writable: number[] = [];
    const loop = startPollLoop({
      definitions,
      deps: collectingPollDeps(store, {} as ConnectorClient, clock, settings),
      owner: 'test',
      tickMs: TICK_MS,
      onStreamHeld: (stream) => held.push({ ...stream, retryAt: stream.retryAt - clock.now() }),
      probeWrites: async () => {
        probes += 1;
      },
      onStoreWritable: (released) => writable.push(released),
    });
    const tickDone = async () => {
      for (let turn = 0; turn < 5 || clock.pendingSleeps === 0; turn++)
        await new Promise((resolve) => setTimeout(resolve, 1));
    };
    for (let passed = 0; passed < 40_000; passed += TICK_MS) {
      await tickDone();
      await clock.advance(TICK_MS);
    }
    await tickDone();
    await loop.stop();
    // Tries at 0, 1, 3, 7, 15 and 31 s, as without the probe: one probe per hold, none released.
    expect(held.map((stream) => [stream.failures, stream.retryAt])).toEqual([
      [1, 1_000],
      [2, 2_000],
      [3, 4_000],
      [4, 8_000],
      [5, 16_000],
      [6, 32_000],
    ]);
    expect(probes).toBe(6);
    expect(writable).toEqual([]);
  });

  it('makes every held stream due once the probe goes through, those held since it last failed too', async () => {
    const clock = new ManualClock(T0);
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'customer,resource', POLL_INTERVAL: '1s' },
      T0,
    );
    const definitions = streamDefinitions('main', settings);
    // A full disk: every write refused, the probe's too, until there is room.
    let full = true;
    const store = new MemoryStateStore();
    const getStream = store.getStream.bind(store);
    const saveStream = store.saveStream.bind(store);
    const refusedWhenFull =
      <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        if (full) throw new Error('DynamoDB PutItem on table t failed: No space left on device');
        return call(...args);
      };
    store.getStream = refusedWhenFull(getStream);
    store.saveStream = refusedWhenFull(saveStream);
    const held: HeldStream[] = [];
    const resumed: string[] = [];
    let roomAt: number | undefined;
    const loop = startPollLoop({
      definitions,
      // With room, each poll fails at the connector and records it: resumed, no longer held.
      deps: collectingPollDeps(store, {} as ConnectorClient, clock, settings),
      owner: 'test',
      tickMs: TICK_MS,
      onStreamHeld: (stream) => {
        held.push(stream);
        // Room comes back right after a hold, before any probe could see the store refuse it.
        if (roomAt === undefined && clock.now() >= T0 + 90_000) {
          full = false;
          roomAt = clock.now();
        }
      },
      onStreamResumed: (stream) => resumed.push(stream.streamId),
      probeWrites: refusedWhenFull(async () => undefined),
    });
    const tickDone = async () => {
      for (let turn = 0; turn < 5 || clock.pendingSleeps === 0; turn++)
        await new Promise((resolve) => setTimeout(resolve, 1));
    };
    for (let passed = 0; passed < 200_000 && roomAt === undefined; passed += TICK_MS) {
      await tickDone();
      await clock.advance(TICK_MS);
    }
    expect(roomAt).toBeDefined();
    const lastHold = held.at(-1)!;
    // Its backoff had reached at least 32 s: it would wait that long without the probe.
    expect(lastHold.retryAt - roomAt!).toBeGreaterThanOrEqual(32_000);
    for (let passed = 0; passed < 5_000 + 2 * TICK_MS; passed += TICK_MS) {
      await tickDone();
      await clock.advance(TICK_MS);
    }
    await tickDone();
    await loop.stop();
    expect(new Set(resumed)).toEqual(new Set(definitions.map((d) => d.streamId)));
    expect(loop.held().size).toBe(0);
  });
});
