import { describe, expect, it } from 'vitest';
import { adminCaller } from '../support/admin-call.ts';
import { waitFor } from '../support/wait-for.ts';
import { backfillOrder, changeCustomers } from './backfill-order.ts';
import { useCustomerBridge } from './customer-bridge.ts';

/** How long the endpoint takes to answer before the crash: its line stays long. */
const SLOW_ANSWER_MS = 250;

describe('a subject’s order through a SIGKILL while a backfill’s deliveries are under way at a slow endpoint', () => {
  const fixture = useCustomerBridge({
    seed: 17,
    dataDirPrefix: 'bridge-crash-order-',
    pollInterval: '500ms',
  });
  const order = backfillOrder(
    adminCaller(() => fixture.bridge.api),
    () => fixture.receiver,
  );

  it('delivers every customer’s `created` and change in detection order when the restarted bridge finds the endpoint answering at once', async () => {
    fixture.bridge.start();
    await waitFor(
      async () => (await order.customerStream())?.initialSyncDone,
      45_000,
      'the first sync',
    );
    await order.subscribe({ maxConcurrency: 2 });

    // A slow endpoint, two requests at once: the backfill's deliveries wait in its line, taken
    // from the bulk queue but not sent, while some are delivered.
    fixture.receiver.slow(SLOW_ANSWER_MS);
    const job = await order.startBackfill();
    await waitFor(
      () => order.subjectsOf('customer.created').size >= 10,
      20_000,
      'the first deliveries',
    );

    // One customer in six changes meanwhile: the `created` of some is delivered, of some is being
    // sent or waits in the endpoint's line, of others waits in the bulk queue or is not read yet.
    const changedAt = Date.now();
    const { customers, changed } = changeCustomers(fixture.sim, 6, 'changed mid-delivery');
    await order.livePollsAfter(changedAt);
    const deliveredBeforeCrash = order.subjectsOf('customer.created').size;

    // Killed with deliveries waiting at the endpoint; the next run finds it answering at once.
    await fixture.bridge.kill();
    fixture.receiver.slow(0);
    fixture.bridge.start();

    const done = await order.backfillDone(job.id);
    expect(done.streams.every((s) => s.lastError === null)).toBe(true);
    await order.everyDelivery(customers.length, changed.length);
    // The crash came in the middle of the deliveries, not after them.
    expect(deliveredBeforeCrash).toBeLessThan(customers.length);
    expect(order.outOfOrder()).toBe(0);
    expect(fixture.receiver.rejected).toBe(0);
    expect(await fixture.bridge.stop()).toBe(0);
  }, 120_000);
});
