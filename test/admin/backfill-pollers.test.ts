import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminDeps } from '../../shared/admin/admin-deps.ts';
import { MemoryBackfillJobStore } from '../../shared/admin/backfill-jobs.ts';
import { handleAdminRequest } from '../../shared/admin/router.ts';
import { seededRandom } from '../../shared/clock.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { collectingPollDeps } from '../polling/poll-harness.ts';
import { type Harness, startHarness } from '../simulator/harness.ts';
import { createAdminHarness } from './support/harness.ts';

let sim: Harness;
beforeAll(async () => {
  sim = await startHarness({ activity: false });
});
afterAll(async () => {
  await sim?.close();
});

describe('backfill with the real pollers against the simulator', () => {
  it('emits created events for every record and reports each stream done', async () => {
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'customer,taxEnvironment' },
      sim.clock.now(),
    );
    const streams = streamDefinitions('main', settings);
    const state = new MemoryStateStore();
    const pollDeps = collectingPollDeps(state, sim.client, sim.clock, settings);
    const { publisher } = pollDeps;
    const pollAll = async () => {
      for (const definition of streams) {
        const outcome = await pollStream(definition, pollDeps, 'test');
        expect(outcome).toMatchObject({ kind: 'polled', caughtUp: true });
      }
    };
    // A baseline first sync stores everything silently.
    await pollAll();
    expect(publisher.events).toEqual([]);

    const webhooks = createAdminHarness();
    const deps: AdminDeps = {
      ...webhooks.deps,
      state,
      streams: async () => streams,
      windows: settings.windows,
      backfills: new MemoryBackfillJobStore(),
      clock: sim.clock,
      random: seededRandom(1),
      authentication: 'none',
    };
    const call = (method: string, path: string, body?: unknown) =>
      handleAdminRequest({ method, path, query: {}, body }, deps);
    try {
      const started = await call('POST', '/backfill', { emit: true });
      expect(started.status).toBe(202);
      const job = started.body as { id: string; done: boolean };
      expect(job.done).toBe(false);

      await sim.clock.advance(10_000);
      await pollAll();

      const progress = await call('GET', `/backfill/${job.id}`);
      // Read: its fraction waits for the webhooks of what it published.
      expect(progress.body).toMatchObject({
        done: true,
        rangeFraction: 1,
        readFraction: 1,
        streams: [
          { streamId: 'main:customer', done: true },
          { streamId: 'main:taxEnvironment', done: true },
        ],
      });
      const types = new Set(publisher.events.map((e) => e.type));
      expect(types).toEqual(new Set(['customer.created', 'taxEnvironment.created']));
      const customers = publisher.events.filter((e) => e.type === 'customer.created');
      const snapshots = [];
      for await (const page of state.scanSnapshots('main:customer')) snapshots.push(...page);
      expect(customers.length).toBeGreaterThan(0);
      expect(customers.length).toBe(snapshots.filter((s) => !s.deleted).length);
    } finally {
      await webhooks.close();
    }
  });
});
