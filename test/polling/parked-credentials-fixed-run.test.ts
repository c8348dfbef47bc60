import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import type { StreamState } from '../../shared/state/state-store.ts';
import { customerStream, POLL_TEST_START_MS } from './poll-harness.ts';

describe('a parked stream polled with fixed credentials', () => {
  const clock = new ManualClock(POLL_TEST_START_MS);
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 29, size: 'small', clock, rateLimit: false });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('shows itself unparked from the run’s first save, not only once the run has ended', async () => {
    const store = new MemoryStateStore();
    const saved: StreamState[] = [];
    const saveStream = store.saveStream.bind(store);
    store.saveStream = async (state, expectedVersion) => {
      saved.push(state);
      return saveStream(state, expectedVersion);
    };
    // Pages of 10 customers: the first sync saves its progress page after page.
    const streamWith = (accessToken: string) => {
      const stream = customerStream(sim, clock, store, 10);
      const client = createConnectorClient(
        {
          baseUrl: sim.url,
          clientToken: sim.tokens.clientToken,
          accessToken,
          client: 'tests',
          rateLimit: false,
        },
        { clock },
      );
      return { ...stream, deps: { ...stream.deps, client } };
    };

    // The connection is added with a wrong token: its first poll parks the stream.
    const wrong = streamWith('wrong-token');
    expect(await pollStream(wrong.definition, wrong.deps, 'test')).toMatchObject({
      kind: 'failed',
      parked: true,
    });

    // Added again with the right one (`remove --keep-state`, `add`): a first sync of many saves,
    // each of which `streams list` shows while the run goes on.
    await clock.advance(2_000);
    saved.length = 0;
    const fixed = streamWith(sim.tokens.accessToken);
    expect(await pollStream(fixed.definition, fixed.deps, 'test')).toMatchObject({
      kind: 'polled',
    });
    expect(saved.length).toBeGreaterThan(2);
    expect(saved.map((state) => [state.parked, state.parkedReason])).toEqual(
      saved.map(() => [false, null]),
    );
  });
});
