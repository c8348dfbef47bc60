import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { adminCaller, waitForFirstSync } from '../support/admin-call.ts';
import { type InProcessBridge, startInProcessBridge } from '../support/in-process-bridge.ts';
import { waitFor } from '../support/wait-for.ts';
import { startTestReceiver, type TestReceiver } from './webhook-receiver.ts';

const CreatedSchema = z.object({ id: z.string(), secret: z.string() });
const SubscriptionViewSchema = z.object({
  enabled: z.boolean(),
  disabledReason: z.string().optional(),
});

describe('an endpoint failing longer than WEBHOOK_DISABLE_AFTER, through change-bridge start', () => {
  let sim: RunningSimulator;
  let receiver: TestReceiver;
  let running: InProcessBridge;
  const call = adminCaller(() => running.bridge.adminUrl);

  beforeAll(async () => {
    sim = await startSimulator({ seed: 41, size: 'small', rateLimit: false });
    receiver = await startTestReceiver();
    // As `start` reads WEBHOOK_FAILING_AFTER=2 and WEBHOOK_DISABLE_AFTER=1500ms.
    running = await startInProcessBridge(sim, { POLL_ENTITIES: 'customer' }, 500, {
      dispatch: {
        deliveryTimeoutMs: 2_000,
        config: { failingAfterFailures: 2, disableAfterMs: 1_500 },
      },
    });
  });
  afterAll(async () => {
    await running?.close();
    await receiver?.close();
    await sim?.close();
  }, 60_000);

  it('disables its subscription once it has failed that long without a success', async () => {
    await waitForFirstSync(call);
    const { id, secret } = CreatedSchema.parse(
      await call('POST', '/subscriptions', { url: receiver.url, retrySchedule: [1_000, 1_000] }),
    );
    receiver.setSecret(secret);
    receiver.failNext(100, () => true);
    const model = sim.controls.model;
    const [customer] = [...model.customers.all()].filter((e) => e.record.IsActive !== false);
    model.update(model.customers, 'customer', customer!.record.Id, { Notes: 'a change' });

    const disabled = await waitFor(
      async () => {
        const view = SubscriptionViewSchema.parse(await call('GET', `/subscriptions/${id}`));
        return view.enabled ? undefined : view;
      },
      20_000,
      'the subscription to be disabled',
    );
    expect(disabled.disabledReason).toBe('failing without success for too long');
    // The first attempt started the run; the retry 1 s later found it 1.5 s old at most once more.
    const attempts = receiver.attempts.filter((a) => a.subject === customer!.record.Id);
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts.every((a) => a.status === 500)).toBe(true);
  }, 60_000);
});
