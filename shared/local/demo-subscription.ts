import type { WebhookService } from '../webhooks/service.ts';
import type { WebhookStore } from '../webhooks/store.ts';
import { type DemoReceiver, startDemoReceiver } from './demo-receiver.ts';
import type { Reporter } from './reporter.ts';

const DEMO_RECEIVER_DESCRIPTION = 'demo receiver (change-bridge start --demo-receiver)';

/**
 * `start --demo-receiver`: a local receiver that verifies every webhook and reports it, and a
 * subscription of every event to it (the previous run's demo subscription is replaced). The
 * receiver verifies with the subscription's secret as `store` holds it, so it follows a rotation.
 * @throws what removing or creating the subscription throws, the receiver closed first.
 */
export async function startDemoReceiverWithSubscription(
  webhooks: WebhookService,
  store: Pick<WebhookStore, 'getSubscription'>,
  reporter: Reporter,
): Promise<DemoReceiver> {
  const receiver = await startDemoReceiver((webhook) =>
    reporter.info(
      webhook.verified
        ? `  ↳ receiver verified ${webhook.type} ${webhook.subject} (${webhook.id})`
        : `  ↳ receiver REJECTED ${webhook.id}: ${webhook.reason}`,
      { receiver: webhook },
    ),
  );
  let subscriptionId: string;
  try {
    await removeDemoSubscriptions(webhooks);
    const { subscription } = await webhooks.createSubscription({
      url: receiver.url,
      description: DEMO_RECEIVER_DESCRIPTION,
    });
    subscriptionId = subscription.id;
  } catch (error) {
    // The caller never gets the receiver to close: left listening, it would keep a failed
    // start's process alive after its error.
    await receiver.close();
    throw error;
  }
  // Read from the store, not kept from here: `subscriptions rotate-secret` stores a new secret
  // that signs every webhook from then on, the old one only until its grace period ends.
  receiver.useSecretSource(async () => (await store.getSubscription(subscriptionId))?.secret);
  return receiver;
}

/**
 * Removes the demo subscriptions of earlier runs: their receiver stopped with the run that
 * started it, so every delivery to it would fail (and, in time, disable it noisily). Returns
 * how many were removed.
 */
export async function removeDemoSubscriptions(webhooks: WebhookService): Promise<number> {
  let removed = 0;
  for (const subscription of await webhooks.listSubscriptions()) {
    if (subscription.description !== DEMO_RECEIVER_DESCRIPTION) continue;
    await webhooks.removeSubscription(subscription.id);
    removed += 1;
  }
  return removed;
}
