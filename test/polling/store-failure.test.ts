import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import type { StoredSnapshot } from '../../shared/state/state-store.ts';
import { collectingPollDeps, POLL_TEST_START_MS } from './poll-harness.ts';

/** A memory store whose n-th snapshot write fails once. */
class FailingOnceStore extends MemoryStateStore {
  private writes = 0;
  constructor(private readonly failAt: number) {
    super();
  }
  override async putSnapshots(
    streamId: string,
    snapshots: readonly StoredSnapshot[],
  ): Promise<void> {
    this.writes++;
    if (this.writes === this.failAt) throw new Error('disk full');
    return super.putSnapshots(streamId, snapshots);
  }
}

describe('a snapshot write that fails mid-window', () => {
  let sim: RunningSimulator;
  const clock = new ManualClock(POLL_TEST_START_MS);

  beforeAll(async () => {
    sim = await startSimulator({ seed: 9, size: 'medium', clock, rateLimit: false });
  });
  afterAll(() => sim.close());

  it('fails the run, keeps the last stored page as the resume point, and the next run completes', async () => {
    const store = new FailingOnceStore(2);
    const client = createConnectorClient(
      {
        baseUrl: sim.url,
        clientToken: sim.tokens.clientToken,
        accessToken: sim.tokens.accessToken,
        client: 'tests',
        rateLimit: false,
      },
      { clock },
    );
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'customer', POLL_HISTORY_START: '400d', POLL_INTERVAL: '1s' },
      clock.now(),
    );
    const [definition] = streamDefinitions('main', settings);
    const deps = collectingPollDeps(store, client, clock, settings);

    const failed = await pollStream(definition!, deps, 'poller');
    expect(failed).toMatchObject({ kind: 'failed', error: expect.stringContaining('disk full') });
    const afterFailure = await store.getStream('main:customer');
    expect(afterFailure).toMatchObject({ consecutiveFailures: 1, window: { pages: 1 } });
    expect(afterFailure?.window?.cursor).not.toBeNull();

    await clock.advance(failed.kind === 'failed' ? failed.retryAt - clock.now() : 0);
    expect(await pollStream(definition!, deps, 'poller')).toMatchObject({
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
    await client.close();
  }, 60_000);
});
