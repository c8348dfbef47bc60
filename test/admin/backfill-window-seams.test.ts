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

describe('an emit backfill whose windows meet just after a customer was updated', () => {
  it('publishes that customer once, so its events published are the webhooks delivered', async () => {
    const updated = [...sim.sim.controls.model.customers.all()]
      .map((entity) => entity.record)
      .filter((record) => record.IsActive)
      .map((record) => Date.parse(String(record.UpdatedUtc)))
      .sort((a, b) => a - b);
    // The history starts three months before 2 s after a customer's update: the first window
    // ends there, and the next one would start 5 s (POLL_OVERLAP) before it.
    const seam = new Date(updated[Math.floor(updated.length / 2)]! + 2_000);
    const historyStart = new Date(seam);
    historyStart.setUTCMonth(historyStart.getUTCMonth() - 3);
    const on = await polledBackfill(sim, {
      entity: 'customer',
      synced: true,
      historyStart: historyStart.toISOString(),
    });
    bridge = on;
    const id = await on.start();
    await sim.clock.advance(2_000);
    for (let polls = 0; polls < 5; polls++) {
      await on.poll();
      await sim.clock.advance(2_000);
    }
    await on.dispatch();

    const ids = on.publisher.events.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    const job = await on.job(id);
    expect(job).toMatchObject({ done: true, deliveryDone: true, webhooksLeft: 0 });
    expect(job.eventsPublished).toBe(ids.length);
    expect(job.webhooksDelivered).toBe(job.eventsPublished);
  });
});
