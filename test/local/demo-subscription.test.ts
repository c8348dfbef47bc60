import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { DemoReceiver } from '../../shared/local/demo-receiver.ts';
import {
  removeDemoSubscriptions,
  startDemoReceiverWithSubscription,
} from '../../shared/local/demo-subscription.ts';
import { jsonReporter } from '../../shared/local/reporter.ts';
import { createHarness } from '../webhooks/support/harness.ts';

const receivers: DemoReceiver[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});

const reporter = jsonReporter({ write: () => undefined, now: () => Date.now() });

describe("the demo receiver's subscription", () => {
  it("replaces the last run's on a start with --demo-receiver, and is removed on a start without", async () => {
    const { service, store } = createHarness();
    const own = await service.createSubscription({ url: 'http://127.0.0.1:9000/mine' });
    receivers.push(await startDemoReceiverWithSubscription(service, store, reporter));
    const second = await startDemoReceiverWithSubscription(service, store, reporter);
    receivers.push(second);
    const urls = async () => (await service.listSubscriptions()).map((s) => s.url).sort();
    // The first run's receiver is gone with its subscription; the user's own stays.
    expect(await urls()).toEqual([second.url, own.subscription.url].sort());
    // A start without --demo-receiver: nothing would answer at the demo URL any more.
    expect(await removeDemoSubscriptions(service)).toBe(1);
    expect(await urls()).toEqual([own.subscription.url]);
    expect(await removeDemoSubscriptions(service)).toBe(0);
  });

  it('closes its receiver when the subscription cannot be made, so a failed start can end', async () => {
    const { service, store } = createHarness();
    let receiverUrl = '';
    // The service as it is, but refusing the demo subscription (a store that fails, say).
    const refusing = Object.assign(Object.create(service) as typeof service, {
      createSubscription: async (input: { url: string }) => {
        receiverUrl = input.url;
        throw new Error('subscription refused');
      },
    });
    await expect(startDemoReceiverWithSubscription(refusing, store, reporter)).rejects.toThrow(
      'subscription refused',
    );
    // Before, the receiver kept listening: `start` printed the error and never exited.
    const reached = await fetch(receiverUrl, { method: 'POST', body: '{}' }).then(
      (response) => `answered ${response.status}`,
      (error: Error) => (error.cause as { code?: string } | undefined)?.code,
    );
    expect(reached).toBe('ECONNREFUSED');
  });

  it('verifies with the secret rotate-secret issued once the old one stops signing', async () => {
    const { service, store } = createHarness();
    const receiver = await startDemoReceiverWithSubscription(service, store, reporter);
    receivers.push(receiver);
    const [demo] = await service.listSubscriptions();
    const payload = JSON.stringify({ type: 'customer.updated', subject: 'c-1' });
    /** Posts `payload` signed as the bridge signs: with each secret given. */
    const post = async (id: string, secrets: string[]) => {
      const timestamp = new Date();
      const signatures = secrets.map((secret) => new Webhook(secret).sign(id, timestamp, payload));
      const response = await fetch(receiver.url, {
        method: 'POST',
        body: payload,
        headers: {
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signatures.join(' '),
        },
      });
      return response.status;
    };
    const first = (await store.getSubscription(demo!.id))!.secret;
    expect(await post('msg_1', [first])).toBe(204);
    // During the grace period both secrets sign; after it, only the new one.
    const { secret: rotated } = await service.rotateSecret(demo!.id);
    expect(await post('msg_2', [rotated, first])).toBe(204);
    expect(await post('msg_3', [rotated])).toBe(204);
    // A signature under no secret of the subscription is still refused.
    expect(await post('msg_4', ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'])).toBe(401);
  });

  it('verifies the pings the bridge signs after rotate-secret with no grace period', async () => {
    const { service, store, drainVisible } = createHarness();
    const lines: string[] = [];
    const seen = jsonReporter({ write: (line) => lines.push(line), now: () => Date.now() });
    receivers.push(await startDemoReceiverWithSubscription(service, store, seen));
    const [demo] = await service.listSubscriptions();
    await service.ping(demo!.id);
    await drainVisible();
    // The old secret stops signing at once: only the new one signs the second ping.
    await service.rotateSecret(demo!.id, 0);
    await service.ping(demo!.id);
    await drainVisible();
    const messages = lines.map((line) => (JSON.parse(line) as { message: string }).message);
    expect(messages).toHaveLength(2);
    for (const message of messages) expect(message).toMatch(/receiver verified ping/);
  });
});
