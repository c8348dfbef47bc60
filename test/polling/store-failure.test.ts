import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { type PollOutcome, pollStream } from '../../shared/polling/poll-stream.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import type { SnapshotReplacement, StoredSnapshot } from '../../shared/state/state-store.ts';
import { customerStream, POLL_TEST_START_MS } from './poll-harness.ts';

/**
 * A memory store whose n-th snapshot write fails once: a batch, or a conditional one (the
 * customers' pages store with conditions where no gate says no proxied write overlaps them).
 */
class FailingOnceStore extends MemoryStateStore {
  private writes = 0;
  constructor(private readonly failAt: number) {
    super();
  }
  private failing(): void {
    this.writes++;
    if (this.writes === this.failAt) throw new Error('disk full');
  }
  override async putSnapshots(
    streamId: string,
    snapshots: readonly StoredSnapshot[],
  ): Promise<void> {
    this.failing();
    return super.putSnapshots(streamId, snapshots);
  }
  override async replaceSnapshots(
    streamId: string,
    replacements: readonly SnapshotReplacement[],
  ): Promise<string[]> {
    this.failing();
    return super.replaceSnapshots(streamId, replacements);
  }
}

const PAGE_COUNT = 100;

describe('a window stopped mid-way', () => {
  let sim: RunningSimulator;
  const clock = new ManualClock(POLL_TEST_START_MS);

  beforeAll(async () => {
    // A tenth of a medium dataset's customers read by pages of a tenth of 1,000: the same
    // windows of several pages, for a tenth of the time.
    sim = await startSimulator({ seed: 9, customers: 1_000, clock, rateLimit: false });
  });
  afterAll(() => sim.close());

  /** The customer stream's first run, failed by its second snapshot write after one page. */
  async function failedAfterFirstPage() {
    const store = new FailingOnceStore(2);
    const stream = customerStream(sim, clock, store, PAGE_COUNT);
    const failed = await pollStream(stream.definition, stream.deps, 'poller');
    expect(failed).toMatchObject({ kind: 'failed', error: expect.stringContaining('disk full') });
    return { ...stream, store, failed };
  }

  /** Runs the stream again once its backoff is over: it must complete with every record stored. */
  async function completesOnRetry(
    { store, definition, deps, client }: Awaited<ReturnType<typeof failedAfterFirstPage>>,
    failed: PollOutcome,
  ): Promise<void> {
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
  }

  it('by a failed snapshot write fails the run, keeps the last stored page as the resume point, and the next run completes', async () => {
    const stream = await failedAfterFirstPage();
    const afterFailure = await stream.store.getStream('main:customer');
    expect(afterFailure).toMatchObject({ consecutiveFailures: 1, window: { pages: 1 } });
    expect(afterFailure?.window?.cursor).not.toBeNull();
    await completesOnRetry(stream, stream.failed);
  }, 60_000);

  it('whose saved cursor the connector then refuses is read again from its newest page, and completes', async () => {
    const stream = await failedAfterFirstPage();
    // The record the saved cursor names is deleted for good meanwhile: the connector answers
    // 400 (an invalid resource identifier) to a page asked from it.
    const stopped = (await stream.store.getStream('main:customer'))!;
    expect(stopped.window?.cursor).not.toBeNull();
    await stream.store.saveStream(
      { ...stopped, window: { ...stopped.window!, cursor: randomUUID() } },
      stopped.version,
    );
    await completesOnRetry(stream, stream.failed);
  }, 60_000);
});
