import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import type { StreamState } from '../../shared/state/state-store.ts';
import { customerStream, POLL_TEST_START_MS } from './poll-harness.ts';

/** A store on which a reset lands just before the poll's first save (as `backfill` or `streams reset` would). */
class ResetDuringPoll extends MemoryStateStore {
  armed = false;
  override async saveStream(state: StreamState, expectedVersion: number): Promise<StreamState> {
    if (this.armed) {
      this.armed = false;
      await this.deleteStream(state.streamId);
    }
    return super.saveStream(state, expectedVersion);
  }
}

describe('a stream whose state changes under a running poll', () => {
  const clock = new ManualClock(POLL_TEST_START_MS);
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 29, size: 'small', clock, rateLimit: false });
  });
  afterAll(async () => sim?.close());

  it('is skipped as changed, not recorded as failed, and the new state stands', async () => {
    const store = new ResetDuringPoll();
    const { definition, deps } = customerStream(sim, clock, store);
    expect(await pollStream(definition, deps, 'test')).toMatchObject({ kind: 'polled' });
    await clock.advance(2_000);
    store.armed = true;
    expect(await pollStream(definition, deps, 'test')).toEqual({
      kind: 'skipped',
      streamId: definition.streamId,
      reason: 'changed',
    });
    // The reset stands: no error written over it.
    expect(await store.getStream(definition.streamId)).toBeUndefined();
    expect(await pollStream(definition, deps, 'test')).toMatchObject({ kind: 'polled' });
    expect((await store.getStream(definition.streamId))?.lastError).toBeNull();
  });
});
