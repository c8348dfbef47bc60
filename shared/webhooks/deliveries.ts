import { hashEventId } from '../changes/event-id.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { deliveryMessage } from './messages.ts';
import { delaySecondsUntil } from './queue.ts';
import type { Delivery } from './store.ts';

/** A fresh id for an extra delivery (replay, redelivery, ping, resync). */
export function newDeliveryId(
  eventId: string,
  subscriptionId: string,
  deps: DispatcherDeps,
): string {
  const nonce = `${deps.clock.now()}:${deps.random()}`;
  return `dlv_${hashEventId(['delivery/v1', eventId, subscriptionId, nonce]).slice('evt_'.length)}`;
}

/** A pending delivery due now. */
export function newDelivery(
  id: string,
  eventId: string,
  subscriptionId: string,
  nowMs: number,
): Delivery {
  return {
    id,
    eventId,
    subscriptionId,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: nowMs,
    createdAt: nowMs,
    updatedAt: nowMs,
    version: 1,
  };
}

/**
 * Stores a delivery and enqueues its first attempt. Idempotent per delivery id: an existing
 * delivery is not stored again, and enqueued again only while still pending (the earlier
 * call may have failed between store and enqueue; a duplicate message is harmless, since
 * delivery updates are conditional on its version). Returns whether it was created.
 */
export async function startDelivery(delivery: Delivery, deps: DispatcherDeps): Promise<boolean> {
  const created = await deps.store.createDelivery(delivery);
  const pending = created || (await deps.store.getDelivery(delivery.id))?.status === 'pending';
  if (pending) {
    await deps.queue.send(
      deliveryMessage(delivery),
      delaySecondsUntil(delivery.nextAttemptAt, deps.clock.now()),
    );
  }
  return created;
}
