import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminDeps } from '../../shared/admin/admin-deps.ts';
import { backfillProgress, startBackfill } from '../../shared/admin/backfill.ts';
import { MemoryBackfillJobStore } from '../../shared/admin/backfill-jobs.ts';
import { buildChangeEvent } from '../../shared/changes/event.ts';
import { seededRandom } from '../../shared/clock.ts';
import type { StreamDefinition } from '../../shared/polling/poll-context.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { MemoryDeliveryCounter } from '../../shared/webhooks/delivery-counter.ts';
import { createWriteThrough } from '../../shared/writes/write-through.ts';
import { collectingPollDeps } from '../polling/poll-harness.ts';
import { type Harness, startHarness } from '../simulator/harness.ts';
import { simulatorConnector } from './support/simulator-writes.ts';

let sim: Harness;
beforeAll(async () => {
  sim = await startHarness({ activity: false });
});
afterAll(async () => {
  await sim?.close();
});

/** A customer stream synced (baseline), the proxy writing through to the same store and publisher. */
async function syncedCustomersWithProxy() {
  const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer' }, sim.clock.now());
  const streams: StreamDefinition[] = streamDefinitions('main', settings);
  const state = new MemoryStateStore();
  const pollDeps = collectingPollDeps(state, sim.client, sim.clock, settings);
  const poll = () => pollStream(streams[0]!, pollDeps, 'test');
  expect(await poll()).toMatchObject({ kind: 'polled', caughtUp: true });
  expect(pollDeps.publisher.events).toEqual([]);
  const deps = {
    state,
    streams: async () => streams,
    windows: settings.windows,
    backfills: new MemoryBackfillJobStore(),
    deliveryCounter: new MemoryDeliveryCounter(),
    clock: sim.clock,
    random: seededRandom(7),
  } as unknown as AdminDeps;
  const held: string[] = [];
  for await (const page of state.scanSnapshots(streams[0]!.streamId))
    held.push(...page.filter((s) => !s.deleted).map((s) => s.entityId));
  const writeThrough = createWriteThrough({
    connectionId: 'main',
    connector: simulatorConnector(sim.sim),
    scope: streams[0]!.scope,
    publisher: pollDeps.publisher,
    state,
    streams,
    clock: sim.clock,
  });
  return { publisher: pollDeps.publisher, poll, deps, customers: held, writeThrough };
}

describe('a write through the proxy while a backfill that emits runs', () => {
  it("publishes the backfill's created of the entity as it stood before the write, as a live poll of the change would", async () => {
    const { publisher, poll, deps, customers, writeThrough } = await syncedCustomersWithProxy();
    try {
      await sim.clock.advance(5_000);
      const job = await startBackfill({ emit: true }, deps);
      await sim.clock.advance(2_000);
      // Written before the pass reads the customer: its new UpdatedUtc is past the pass's end.
      const written = customers[0]!;
      const before = structuredClone(sim.sim.controls.model.customers.get(written)!.record);
      const result = await writeThrough.forward('customers/update', {
        CustomerId: written,
        Notes: 'written through the proxy during the backfill',
      });
      expect(result.status).toBe(200);
      await sim.clock.advance(2_000);
      expect(await poll()).toMatchObject({ kind: 'polled', caughtUp: true });

      const created = publisher.events.filter((e) => e.type === 'customer.created');
      // Every customer that existed when the backfill began, once, the written one included.
      expect(new Set(created.map((e) => e.subject))).toEqual(new Set(customers));
      expect(created).toHaveLength(customers.length);
      expect(publisher.events.filter((e) => e.subject === written).map((e) => e.type)).toEqual([
        'customer.created',
        'customer.updated',
      ]);
      // The created is of the customer as it stood, with the id the pass would have given it.
      const [announced] = publisher.events.filter((e) => e.subject === written);
      expect(announced!.data.current).toEqual(before);
      const asThePassSendsIt = buildChangeEvent({
        connectionId: 'main',
        entityType: 'customer',
        entityId: written,
        scope: announced!.data.scope,
        detectedAt: sim.clock.now(),
        backfillId: job.id,
        change: 'created',
        current: before,
      });
      expect(announced!.id).toBe(asThePassSendsIt.id);
      expect((await backfillProgress(job, deps)).done).toBe(true);
    } finally {
      await writeThrough.close();
    }
  });
});
