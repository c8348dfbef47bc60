import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../simulator/harness.ts';
import { type PolledBackfill, polledBackfill } from './support/polled-backfill.ts';

let sim: Harness;
beforeAll(async () => {
  sim = await startHarness({ activity: false, deletesMoveUpdatedUtc: false });
});
afterAll(async () => {
  await sim?.close();
});

let bridge: PolledBackfill | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

/**
 * An emit backfill of a stream whose sweep (resources) or deletion read (customers) runs while
 * its pass does, and finds a record deleted (its `UpdatedUtc` unmoved) before the pass read it:
 * the sweep sends the backfill's `created` of it, then its `deleted` (sweep-backfill.test.ts).
 */
describe.each([
  { entityType: 'resource', sweepAfterMs: 61 * 60_000 },
  { entityType: 'customer', sweepAfterMs: 16 * 60_000 },
] as const)(
  'an emit backfill of $entityType streams a sweep runs beside',
  ({ entityType, sweepAfterMs }) => {
    it('counts each created event it sent once in its events published, and ends with every webhook delivered', async () => {
      const on = await polledBackfill(sim, { entity: entityType, synced: true });
      bridge = on;
      const held: string[] = [];
      for await (const page of on.state.scanSnapshots(`main:${entityType}`))
        held.push(...page.filter((s) => !s.deleted).map((s) => s.entityId));
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
      const id = await on.start();
      await sim.clock.advance(2_000);
      expect(await on.poll()).toMatchObject({ kind: 'polled', caughtUp: true });
      await on.dispatch();

      const created = new Set(
        on.publisher.events.filter((e) => e.type === `${entityType}.created`).map((e) => e.id),
      );
      const deleted = on.publisher.events.filter((e) => e.type === `${entityType}.deleted`);
      expect(created.size).toBe(held.length);
      expect(deleted).toHaveLength(1);
      const job = await on.job(id);
      expect(job).toMatchObject({ done: true, deliveryDone: true, webhooksLeft: 0 });
      // Its own events: every entity's created, the one the sweep sent first included.
      expect(job.eventsPublished).toBe(created.size);
      // Delivered: those, and the live change (the deletion) detected meanwhile.
      expect(job.webhooksDelivered).toBe(job.eventsPublished + deleted.length);
    });
  },
);
