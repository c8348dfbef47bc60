import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  type ConnectorClient,
  createConnectorClient,
} from '../../shared/connector/connector-client.ts';
import type { HttpTransport, RawResponse } from '../../shared/connector/http-transport.ts';
import { startPollLoop } from '../../shared/polling/poll-runner.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import { plannerSleepMs } from '../../shared/polling/schedule.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { collectingPollDeps } from './poll-harness.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);
const TICK_MS = 250;

/**
 * The times (ms after T0) at which the local loop tries to start streams due at `dueAfterT0`
 * (each its own connection, gone, so the loop tries again at every wake), over `spanMs`.
 */
async function startTimes(dueAfterT0: readonly number[], spanMs: number): Promise<number[]> {
  const clock = new ManualClock(T0);
  const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer', POLL_INTERVAL: '1s' }, T0);
  const definitions = dueAfterT0.flatMap((_, i) => streamDefinitions(`hotel-${i}`, settings));
  const store = new MemoryStateStore();
  for (const [i, definition] of definitions.entries())
    await store.saveStream(
      { ...initialStreamState(definition, T0), nextDueAt: T0 + dueAfterT0[i]! },
      0,
    );
  const tried: number[] = [];
  const loop = startPollLoop({
    definitions: () => definitions,
    connectionOf: () => {
      tried.push(clock.now() - T0);
      return undefined;
    },
    deps: collectingPollDeps(store, {} as ConnectorClient, clock, settings),
    owner: 'test',
    tickMs: TICK_MS,
  });
  while (clock.pendingSleeps === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  await clock.advance(spanMs);
  await loop.stop();
  return tried;
}

/** A connector whose answers wait until released; notes each request's time on the clock. */
class HeldTransport implements HttpTransport {
  readonly sentAt: number[] = [];
  private release: (() => void) | undefined;

  constructor(private readonly clock: ManualClock) {}

  postJson(): Promise<RawResponse> {
    this.sentAt.push(this.clock.now() - T0);
    return new Promise((resolve) => {
      this.release = () =>
        resolve({ status: 200, headers: {}, text: JSON.stringify({ TaxEnvironments: [] }) });
    });
  }

  answer(): void {
    this.release?.();
    this.release = undefined;
  }

  async close(): Promise<void> {}
}

describe('the local planner’s wake-ups', () => {
  it('starts a stream again as soon as a poll that outlasted its interval ends', async () => {
    const clock = new ManualClock(T0);
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'taxEnvironment', POLL_INTERVAL: '1s' },
      T0,
    );
    const [definition] = streamDefinitions('hotel', settings);
    const store = new MemoryStateStore();
    const state = initialStreamState(definition!, T0);
    await store.saveStream({ ...state, initialSyncDone: true, lastPollAt: T0 - 1_000 }, 0);
    const transport = new HeldTransport(clock);
    const client = createConnectorClient(
      {
        baseUrl: 'http://connector.test',
        clientToken: 'c',
        accessToken: 'a',
        client: 'test',
        rateLimit: false,
      },
      { clock, transport },
    );
    const loop = startPollLoop({
      definitions: [definition!],
      connectionOf: () => ({ client }),
      deps: collectingPollDeps(store, client, clock, settings),
      owner: 'test',
      tickMs: TICK_MS,
    });
    const settle = async () => {
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 1));
    };
    await settle();
    expect(transport.sentAt).toEqual([0]);
    // Its answer comes 1,100 ms later: the stream is due again (1,000), and polls at once,
    // not at the tick after (1,250).
    await clock.advance(1_100);
    transport.answer();
    await settle();
    expect(transport.sentAt).toEqual([0, 1_100]);
    transport.answer();
    await loop.stop();
  });

  it('starts a stream when it falls due, not at the tick after', async () => {
    // Ticks at 0, 250, … 1,000, 1,250: due at 1,100, it starts at 1,101, not 1,250.
    const tried = await startTimes([1_100], 1_200);
    expect(tried[0]).toBe(1_101);
  });

  it('wakes at most ten times a tick for streams due at scattered instants', async () => {
    // 100 streams due a millisecond apart from 1,000: each start waits for a wake-up, and the
    // wake-ups come at least 25 ms (a tenth of a tick) apart.
    const due = Array.from({ length: 100 }, (_, i) => 1_000 + i);
    const tried = await startTimes(due, 1_099);
    const wakes = [...new Set(tried)];
    for (let i = 1; i < wakes.length; i++)
      expect(wakes[i]! - wakes[i - 1]!).toBeGreaterThanOrEqual(TICK_MS / 10);
    expect(wakes.filter((at) => at >= 1_000).length).toBeLessThanOrEqual(5);
    // Each stream is tried by the first wake at or after its due time.
    expect(Math.min(...tried.filter((at) => at >= 1_000))).toBeLessThanOrEqual(
      1_001 + TICK_MS / 10,
    );
  });

  it('sleeps a tick when nothing is due sooner, and never less than a tenth of one', () => {
    expect(plannerSleepMs(250, 1_000, undefined)).toBe(250);
    expect(plannerSleepMs(250, 1_000, 5_000)).toBe(250);
    expect(plannerSleepMs(250, 1_000, 1_100)).toBe(101);
    expect(plannerSleepMs(250, 1_000, 1_003)).toBe(25);
  });
});
