import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toStreamView } from '../../shared/admin/streams-view.ts';
import { streamStateText } from '../../shared/cli/admin/stream-state.ts';
import { ManualClock } from '../../shared/clock.ts';
import { withSavedStates } from '../../shared/polling/poll-context.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import type { StreamState } from '../../shared/state/state-store.ts';
import { customerStream, POLL_TEST_START_MS } from '../polling/poll-harness.ts';

describe('streams list during a first sync', () => {
  const clock = new ManualClock(POLL_TEST_START_MS);
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 5, size: 'small', clock, rateLimit: false });
  });
  afterAll(() => sim.close());

  it('shows every state a first poll run saves before it ends as a first sync with its progress', async () => {
    const saved: StreamState[] = [];
    const store = withSavedStates(new MemoryStateStore(), (state) => saved.push(state));
    // Pages of 25: the run saves its window page by page and its watermark window by window.
    const { definition, deps } = customerStream(sim, clock, store, 25);

    expect(await pollStream(definition, { ...deps, store }, 'poller')).toMatchObject({
      kind: 'polled',
    });

    const duringRun = saved.filter((state) => state.lastPollAt === null);
    expect(duringRun.length).toBeGreaterThan(1);
    for (const state of duringRun) {
      expect(streamStateText(toStreamView(definition, state, clock.now()))).toMatch(
        /^first sync \([\d,]+ records(, window \d+ pages)?\)$/,
      );
    }
    expect(streamStateText(toStreamView(definition, saved.at(-1), clock.now()))).toBe('ok');
  });
});
