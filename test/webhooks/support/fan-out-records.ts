import { fanOutDeliveryId } from '../../../shared/webhooks/delivered-at-once.ts';
import type { Attempt, Delivery } from '../../../shared/webhooks/store.ts';

/** A first attempt at `at` answered `status`: delivered below 300, else to retry. */
export function firstAttempt(deliveryId: string, at: number, status: number): Attempt {
  return {
    deliveryId,
    attempt: 1,
    at,
    status,
    latencyMs: 5,
    responseHeaders: {},
    responseBody: '',
    outcome: status < 300 ? 'delivered' : 'retry',
  };
}

/**
 * The fan-out delivery of `eventId` to `subscriptionId` after its first attempt at `at`:
 * pending a retry when `retrying`, else delivered (as the dispatcher keeps it on the event).
 */
export function attemptedFanOut(
  eventId: string,
  subscriptionId: string,
  at: number,
  retrying: boolean,
): Delivery {
  return {
    id: fanOutDeliveryId(eventId, subscriptionId),
    eventId,
    subscriptionId,
    status: retrying ? 'pending' : 'delivered',
    attempts: 1,
    nextAttemptAt: at,
    createdAt: at,
    updatedAt: at,
    version: 2,
  };
}
