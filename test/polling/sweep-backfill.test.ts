import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminDeps } from '../../shared/admin/admin-deps.ts';
import { startBackfill } from '../../shared/admin/backfill.ts';
import { MemoryBackfillJobStore } from '../../shared/admin/backfill-jobs.ts';
import { seededRandom } from '../../shared/clock.ts';
import type { StreamDefinition } from '../../shared/polling/poll-context.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { MemoryDeliveryCounter } from '../../shared/webhooks/delivery-counter.ts';
import { type Harness, startHarness } from '../simulator/harness.ts';
import { collectingPollDeps } from './poll-harness.ts';

let sim: Harness;
beforeAll(async () => {
  sim = await startHarness({ activity: false, deletesMoveUpdatedUtc: false });
});
afterAll(async () => {
  await sim?.close();
});

/**
 * design.md, Initial sync and backfill: with `emit`, every entity that existed when the backfill
 * began is published once as created. One a sweep finds deleted before the pass reads it is out
 * of the pass's reach (the pass republishes live records only): the sweep (for customers, the
 * read on DeletedUtc) sends the backfill's created of it first, as a live window does.
 */
describe.each([
  { entityType: 'resource', sweepAfterMs: 61 * 60_000 },
  { entityType: 'customer', sweepAfterMs: 16 * 60_000 },
] as const)(
  'a $entityType a sweep finds deleted while an emit backfill runs',
  ({ entityType, sweepAfterMs }) => {
    it('is published as created by the backfill, then as deleted', async () => {
      const settings = pollSettingsFromEnv({ POLL_ENTITIES: entityType }, sim.clock.now());
      const streams: StreamDefinition[] = streamDefinitions('main', settings);
      const stream = streams[0]!;
      const state = new MemoryStateStore();
      const pollDeps = collectingPollDeps(state, sim.client, sim.clock, settings);
      const poll = () => pollStream(stream, pollDeps, 'test');
      expect(await poll()).toMatchObject({ kind: 'polled', caughtUp: true });
      const held: string[] = [];
      for await (const page of state.scanSnapshots(stream.streamId))
        held.push(...page.filter((s) => !s.deleted).map((s) => s.entityId));
      const deps = {
        state,
        streams: async () => streams,
        windows: settings.windows,
        backfills: new MemoryBackfillJobStore(),
        deliveryCounter: new MemoryDeliveryCounter(),
        clock: sim.clock,
        random: seededRandom(7),
      } as unknown as AdminDeps;

      await sim.clock.advance(sweepAfterMs);
      const model = sim.sim.controls.model;
      const gone = held.at(-1)!;
      if (entityType === 'resource')
        model.softDelete(model.resources, 'resource', gone, { IsActive: false });
      else
        model.softDelete(model.customers, 'customer', gone, {
          IsActive: false,
          ActivityState: 'Deleted',
        });
      await startBackfill({ emit: true }, deps);
      await sim.clock.advance(2_000);
      expect(await poll()).toMatchObject({ kind: 'polled', caughtUp: true });

      const events = pollDeps.publisher.events;
      expect(events.filter((e) => e.subject === gone).map((e) => e.type)).toEqual([
        `${entityType}.created`,
        `${entityType}.deleted`,
      ]);
      const created = events
        .filter((e) => e.type === `${entityType}.created`)
        .map((e) => e.subject);
      expect(created.sort()).toEqual([...held].sort());
    });
  },
);
