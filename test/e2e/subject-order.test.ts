import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { adminCaller, waitForFirstSync } from '../support/admin-call.ts';
import { type InProcessBridge, startInProcessBridge } from '../support/in-process-bridge.ts';
import { waitFor } from '../support/wait-for.ts';
import { startTestReceiver, type TestReceiver } from './webhook-receiver.ts';

const SubscriptionSchema = z.object({ secret: z.string() });

describe('a subject’s order through change-bridge start', () => {
  let sim: RunningSimulator;
  let receiver: TestReceiver;
  let running: InProcessBridge;
  const call = adminCaller(() => running.bridge.adminUrl);

  beforeAll(async () => {
    sim = await startSimulator({ seed: 37, size: 'small', rateLimit: false });
    receiver = await startTestReceiver();
    running = await startInProcessBridge(sim, { POLL_ENTITIES: 'customer' });
  });
  afterAll(async () => {
    await running?.close();
    await receiver?.close();
    await sim?.close();
  }, 60_000);

  it('holds a customer’s second change until its first, failing twice, is delivered', async () => {
    await waitForFirstSync(call);
    // The first retry 1 s after a failure, the next 4 s after that: the second change, made
    // right after the first attempt, is polled (every 500 ms) well within the 5 s it is held.
    const { secret } = SubscriptionSchema.parse(
      await call('POST', '/subscriptions', { url: receiver.url, retrySchedule: [1_000, 4_000] }),
    );
    receiver.setSecret(secret);
    const model = sim.controls.model;
    const [customer] = [...model.customers.all()].filter((e) => e.record.IsActive !== false);
    const id = customer!.record.Id;
    receiver.failNext(2, (event) => event.subject === id);
    model.update(model.customers, 'customer', id, { Notes: 'first change' });
    await waitFor(
      async () => receiver.attempts.some((a) => a.subject === id) || undefined,
      10_000,
      'the first change’s first attempt',
    );
    model.update(model.customers, 'customer', id, { Notes: 'second change' });
    await waitFor(
      async () => receiver.received.filter((e) => e.subject === id).length === 2 || undefined,
      30_000,
      'both changes to be delivered',
    );

    const ofCustomer = receiver.attempts.filter((a) => a.subject === id);
    const [first] = ofCustomer;
    const second = ofCustomer.find((a) => a.webhookId !== first!.webhookId);
    expect(ofCustomer.map((a) => [a.webhookId, a.status])).toEqual([
      [first!.webhookId, 500],
      [first!.webhookId, 500],
      [first!.webhookId, 204],
      [second!.webhookId, 204],
    ]);
  }, 60_000);
});
