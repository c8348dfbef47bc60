import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Clock } from '../clock.ts';
import { noteNextAttempt } from '../webhooks/attempt.ts';
import type { DispatcherDeps } from '../webhooks/dispatcher-deps.ts';
import { subjectOfBody } from '../webhooks/event-subject.ts';
import { deliveryMessage } from '../webhooks/messages.ts';
import { delaySecondsUntil } from '../webhooks/queue.ts';
import type { Delivery } from '../webhooks/store.ts';
import { queueDepth } from './queue-backlog-gauge.ts';

/** Deliveries listed per subscription when recovering (the store's listing bound). */
const RECOVERY_LIST_LIMIT = 1000;

/**
 * Re-enqueues every pending delivery and tells the endpoint scheduler which deliveries of each
 * subject wait, oldest first, so a subject's new events still wait behind them after a
 * restart (its order holds across one). The disk queue keeps its messages across a restart;
 * this covers those lost with an older in-memory queue or never sent. A duplicate message is
 * harmless (delivery updates are conditional on their version). Returns how many were enqueued.
 */
export async function requeuePendingDeliveries(deps: DispatcherDeps): Promise<number> {
  const pending: Delivery[] = [];
  for (const subscription of await deps.store.listSubscriptions()) {
    const deliveries = await deps.store.listDeliveries({
      subscriptionId: subscription.id,
      limit: RECOVERY_LIST_LIMIT,
    });
    pending.push(...deliveries.filter((delivery) => delivery.status === 'pending'));
  }
  pending.sort((a, b) => a.createdAt - b.createdAt);
  for (const delivery of pending) {
    const event = await deps.store.getEvent(delivery.eventId);
    const subject = event === undefined ? undefined : subjectOfBody(event.body);
    noteNextAttempt(delivery, subject, deps);
    await deps.queue.send(
      deliveryMessage(delivery, subject),
      delaySecondsUntil(delivery.nextAttemptAt, deps.clock.now()),
    );
  }
  return pending.length;
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
