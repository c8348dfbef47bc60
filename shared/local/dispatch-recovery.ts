import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Clock } from '../clock.ts';
import type { DispatcherDeps } from '../webhooks/dispatcher-deps.ts';
import { delaySecondsUntil } from '../webhooks/queue.ts';
import { queueDepth } from './queue-backlog-gauge.ts';

/** Deliveries listed per subscription when recovering (the store's listing bound). */
const RECOVERY_LIST_LIMIT = 1000;

/**
 * Re-enqueues every pending delivery: the local SQS emulator keeps no messages across a
 * restart, but deliveries live in DynamoDB. A duplicate message is harmless (delivery updates
 * are conditional on their version). Returns how many were enqueued.
 */
export async function requeuePendingDeliveries(deps: DispatcherDeps): Promise<number> {
  let count = 0;
  for (const subscription of await deps.store.listSubscriptions()) {
    const deliveries = await deps.store.listDeliveries({
      subscriptionId: subscription.id,
      limit: RECOVERY_LIST_LIMIT,
    });
    for (const delivery of deliveries) {
      if (delivery.status !== 'pending') continue;
      await deps.queue.send(
        { kind: 'delivery', deliveryId: delivery.id },
        delaySecondsUntil(delivery.nextAttemptAt, deps.clock.now()),
      );
      count++;
    }
  }
  return count;
}

/**
 * Waits until the queue holds no visible or in-flight message (delayed retries may stay:
 * they are pending deliveries in the store), or until `timeoutMs` passes.
 */
export async function drainQueue(
  client: SQSClient,
  queueUrl: string,
  clock: Clock,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = clock.now() + timeoutMs;
  while (clock.now() < deadline) {
    if ((await queueDepth(client, queueUrl)) === 0) return true;
    await clock.sleep(100);
  }
  return false;
}
