import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import type { StoredSnapshot } from '../../shared/state/state-store.ts';
import { customerStream, POLL_TEST_START_MS } from './poll-harness.ts';

/** A memory store whose second snapshot write fails once: the window stops after its first page. */
class FailingOnceStore extends MemoryStateStore {
  private writes = 0;
  override async putSnapshots(
    streamId: string,
    snapshots: readonly StoredSnapshot[],
  ): Promise<void> {
    this.writes++;
    if (this.writes === 2) throw new Error('disk full');
    return super.putSnapshots(streamId, snapshots);
  }
}

describe('a window whose saved cursor the connector refuses', () => {
  let sim: RunningSimulator;
  const clock = new ManualClock(POLL_TEST_START_MS);

  beforeAll(async () => {
    sim = await startSimulator({ seed: 9, size: 'medium', clock, rateLimit: false });
  });
  afterAll(() => sim.close());

  it('is read again from its newest page, and completes with every record stored', async () => {
    const store = new FailingOnceStore();
    const { client, definition, deps } = customerStream(sim, clock, store);
    const failed = await pollStream(definition, deps, 'poller');
    expect(failed.kind).toBe('failed');
    // The record the saved cursor names is deleted for good meanwhile: the connector answers
    // 400 (an invalid resource identifier) to a page asked from it.
    const stopped = (await store.getStream('main:customer'))!;
    expect(stopped.window?.cursor).not.toBeNull();
    await store.saveStream(
      { ...stopped, window: { ...stopped.window!, cursor: randomUUID() } },
      stopped.version,
    );

    await clock.advance(failed.kind === 'failed' ? failed.retryAt - clock.now() : 0);
    expect(await pollStream(definition, deps, 'poller')).toMatchObject({
      kind: 'polled',
      caughtUp: true,
    });
    let stored = 0;
    for await (const page of store.scanSnapshots('main:customer'))
      stored += page.filter((s) => !s.deleted).length;
    const active = [...sim.controls.model.customers.all()].filter(
      (entry) => entry.record.IsActive,
    ).length;
    expect(stored).toBe(active);
    expect((await store.getStream('main:customer'))?.consecutiveFailures).toBe(0);
    await client.close();
  }, 60_000);
});
