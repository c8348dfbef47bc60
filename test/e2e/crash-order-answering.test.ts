import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BackfillJobViewSchema, StreamListSchema } from '../../shared/admin/schemas.ts';
import type { RunningSimulator } from '../../shared/simulator/simulator.ts';
import type { BridgeProcess } from '../chaos/bridge-process.ts';
import { outOfOrderArrivals } from '../chaos/duplicate-ids.ts';
import { adminCaller } from '../support/admin-call.ts';
import { waitFor } from '../support/wait-for.ts';
import { type CustomerBridge, customerBridge } from './customer-bridge.ts';
import type { TestReceiver } from './webhook-receiver.ts';

const STREAM_ID = 'local:customer';
/** How long the endpoint takes to answer before the crash: its line stays long. */
const SLOW_ANSWER_MS = 250;
const SubscriptionSchema = z.object({ secret: z.string() });

describe('a subject’s order through a SIGKILL while a backfill’s deliveries are under way at a slow endpoint', () => {
  let sim: RunningSimulator;
  let receiver: TestReceiver;
  let fixture: CustomerBridge | undefined;
  let bridge: BridgeProcess;

  const call = adminCaller(() => bridge.api);
  const customerStream = async () => {
    const listing = await call('GET', '/streams').catch(() => undefined);
    return StreamListSchema.safeParse(listing).data?.streams.find((s) => s.id === STREAM_ID);
  };
  const subjectsOf = (type: string) =>
    new Set(receiver.received.filter((e) => e.type === type).map((e) => e.subject));

  beforeAll(async () => {
    fixture = await customerBridge({
      seed: 17,
      dataDirPrefix: 'bridge-crash-order-',
      pollInterval: '500ms',
    });
    ({ sim, receiver, bridge } = fixture);
  });

  afterAll(async () => {
    await fixture?.close();
  });

  it('delivers every customer’s `created` and change in detection order when the restarted bridge finds the endpoint answering at once', async () => {
    bridge.start();
    await waitFor(async () => (await customerStream())?.initialSyncDone, 45_000, 'the first sync');
    const subscription = SubscriptionSchema.parse(
      await call('POST', '/subscriptions', { url: receiver.url, maxConcurrency: 2 }),
    );
    receiver.setSecret(subscription.secret);

    // A slow endpoint, two requests at once: the backfill's deliveries wait in its line, taken
    // from the bulk queue but not sent, while some are delivered.
    receiver.slow(SLOW_ANSWER_MS);
    const job = BackfillJobViewSchema.parse(
      await call('POST', '/backfill', { entities: ['customer'], emit: true }),
    );
    await waitFor(() => subjectsOf('customer.created').size >= 10, 20_000, 'the first deliveries');

    // One customer in six changes meanwhile: the `created` of some is delivered, of some is being
    // sent or waits in the endpoint's line, of others waits in the bulk queue or is not read yet.
    const model = sim.controls.model;
    const active = [...model.customers.all()].filter((entry) => entry.record.IsActive !== false);
    const changed = active.filter((_, index) => index % 6 === 0);
    const changedAt = Date.now();
    for (const { record } of changed)
      model.update(model.customers, 'customer', record.Id, { Notes: 'changed mid-delivery' });
    await waitFor(
      async () => Date.parse((await customerStream())?.lastPollAt ?? '') > changedAt + 1_000,
      10_000,
      'live polls after the changes',
      50,
    );
    const deliveredBeforeCrash = subjectsOf('customer.created').size;

    // Killed with deliveries waiting at the endpoint; the next run finds it answering at once.
    await bridge.kill();
    receiver.slow(0);
    bridge.start();

    const done = await waitFor(
      async () => {
        // The restarted bridge's admin API answers once it has started.
        const answer = await call('GET', `/backfill/${job.id}`).catch(() => undefined);
        const view = BackfillJobViewSchema.safeParse(answer);
        return view.data?.done ? view.data : undefined;
      },
      30_000,
      'the backfill to finish',
      100,
    );
    expect(done.streams.every((s) => s.lastError === null)).toBe(true);
    const customers = active.map((entry) => entry.record.Id);
    await waitFor(
      () =>
        subjectsOf('customer.created').size === customers.length &&
        subjectsOf('customer.updated').size === changed.length,
      30_000,
      'every delivery',
      50,
    );
    // The crash came in the middle of the deliveries, not after them.
    expect(deliveredBeforeCrash).toBeLessThan(customers.length);
    const arrivals = receiver.received.map((e) => ({ ...e, id: e.webhookId }));
    expect(outOfOrderArrivals(arrivals)).toBe(0);
    expect(receiver.rejected).toBe(0);
    expect(await bridge.stop()).toBe(0);
  }, 120_000);
});
