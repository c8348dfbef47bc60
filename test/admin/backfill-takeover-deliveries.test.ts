import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../simulator/harness.ts';
import { type PolledBackfill, polledBackfill } from './support/polled-backfill.ts';

let sim: Harness;
beforeAll(async () => {
  sim = await startHarness({ activity: false });
});
afterAll(async () => {
  await sim?.close();
});

let bridge: PolledBackfill | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

describe.each([
  { part: 'pass', entity: 'customer', synced: true },
  { part: 'first sync', entity: 'customer', synced: false },
  { part: 'listing pass', entity: 'billingAutomation', synced: true },
  { part: 'listing first sync', entity: 'billingAutomation', synced: false },
])(
  'a backfill that takes over $entity streams while the earlier one’s $part has a page in flight',
  ({ entity, synced }) => {
    it("counts none of the earlier backfill's webhooks as its own, and ends once its own are delivered", async () => {
      const on = await polledBackfill(sim, { entity, synced, historyStart: '60d' });
      bridge = on;
      await on.start();
      await sim.clock.advance(10_000);
      // The earlier backfill has a page in hand when the later one starts (a listing's read is
      // the stream's live poll too).
      on.holding.hold(entity === 'billingAutomation');
      const polling = on.poll();
      await on.holding.reached();
      const later = await on.start();
      on.holding.release();
      expect(await polling).toMatchObject({ kind: 'skipped', reason: 'changed' });
      await on.dispatch();
      // The page was given up: published, it would reach the receiver under the earlier job's ids.
      expect(on.publisher.events).toEqual([]);
      expect(await on.job(later)).toMatchObject({ eventsPublished: 0, webhooksDelivered: 0 });

      // The later backfill reads everything; its events are not handed to the dispatcher yet.
      await sim.clock.advance(1_000);
      expect(await on.poll()).toMatchObject({ kind: 'polled', caughtUp: true });
      const read = await on.job(later);
      expect(read).toMatchObject({ done: true, deliveryDone: false });
      expect(read.eventsQueued).toBe(read.eventsPublished);

      await on.dispatch();
      const delivered = await on.job(later);
      expect(delivered).toMatchObject({ done: true, deliveryDone: true, webhooksLeft: 0 });
      expect(delivered.webhooksDelivered).toBe(delivered.eventsPublished);
    });
  },
);
