import { z } from 'zod';
import { BackfillJobViewSchema } from '../../shared/admin/schemas.ts';
import type { RunningSimulator } from '../../shared/simulator/simulator.ts';
import { outOfOrderArrivals } from '../chaos/duplicate-ids.ts';
import type { AdminCall } from '../support/admin-call.ts';
import { waitFor } from '../support/wait-for.ts';
import { customerStreamOf } from './customer-bridge.ts';
import type { TestReceiver } from './webhook-receiver.ts';

const SubscriptionSchema = z.object({ secret: z.string() });

/**
 * What the e2e tests of a subject's order through an emitting backfill and a SIGKILL share:
 * reading the customer stream and a backfill job through the admin API (`undefined` while the
 * API does not answer: a restarted bridge), and what the receiver got.
 */
export function backfillOrder(call: AdminCall, receiver: () => TestReceiver) {
  const customerStream = customerStreamOf(call);
  /** The subjects of the events of `type` the receiver got. */
  const subjectsOf = (type: string) =>
    new Set(
      receiver()
        .received.filter((e) => e.type === type)
        .map((e) => e.subject),
    );
  return {
    customerStream,
    subjectsOf,
    /** Subscribes the receiver (with `settings`) and gives it the subscription's secret. */
    async subscribe(settings: Record<string, unknown> = {}): Promise<void> {
      const subscription = SubscriptionSchema.parse(
        await call('POST', '/subscriptions', { url: receiver().url, ...settings }),
      );
      receiver().setSecret(subscription.secret);
    },
    /** Starts a backfill of the customers that emits a `created` for each. */
    async startBackfill(): Promise<z.infer<typeof BackfillJobViewSchema>> {
      return BackfillJobViewSchema.parse(
        await call('POST', '/backfill', { entities: ['customer'], emit: true }),
      );
    },
    /** Resolves with the job once it is done. */
    backfillDone(jobId: string): Promise<z.infer<typeof BackfillJobViewSchema>> {
      return waitFor(
        async () => {
          const answer = await call('GET', `/backfill/${jobId}`).catch(() => undefined);
          const view = BackfillJobViewSchema.safeParse(answer);
          return view.data?.done ? view.data : undefined;
        },
        30_000,
        'the backfill to finish',
        100,
      );
    },
    /** Resolves once the live polls ran a while after `changedAt` (they detected the changes). */
    async livePollsAfter(changedAt: number): Promise<void> {
      await waitFor(
        async () => Date.parse((await customerStream())?.lastPollAt ?? '') > changedAt + 1_500,
        10_000,
        'live polls after the changes',
        50,
      );
    },
    /** Resolves once every customer's `created` and every changed one's `updated` arrived. */
    async everyDelivery(customers: number, changed: number): Promise<void> {
      await waitFor(
        () =>
          subjectsOf('customer.created').size === customers &&
          subjectsOf('customer.updated').size === changed,
        30_000,
        'every delivery',
        50,
      );
    },
    /** Events that first arrived after a later change of their subject had (see outOfOrderArrivals). */
    outOfOrder: () =>
      outOfOrderArrivals(receiver().received.map((e) => ({ ...e, id: e.webhookId }))),
  };
}

/** The simulator's active customers, and every `nth` of them changed (`Notes`) now. */
export function changeCustomers(sim: RunningSimulator, nth: number, notes: string) {
  const model = sim.controls.model;
  const active = [...model.customers.all()].filter((entry) => entry.record.IsActive !== false);
  const changed = active.filter((_, index) => index % nth === 0);
  for (const { record } of changed)
    model.update(model.customers, 'customer', record.Id, { Notes: notes });
  return { customers: active.map((entry) => entry.record.Id), changed };
}
