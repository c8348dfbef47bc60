import { BridgeError } from '../errors.ts';
import type { WebhookStore } from './store.ts';
import type { Subscription } from './subscription.ts';

/** Writes of one change lost to other writers before {@link changeSubscription} gives up. */
export const SUBSCRIPTION_WRITE_TRIES = 5;

/** A change of a subscription lost {@link SUBSCRIPTION_WRITE_TRIES} writes in a row to others. */
export class SubscriptionWriteConflictError extends BridgeError {
  override name = 'SubscriptionWriteConflictError';
}

/** What {@link changeSubscription} did: the subscription it changed, and what it stored. */
export interface SubscriptionChanged {
  /** The subscription as stored when the change that went through was made. */
  before: Subscription;
  /** As stored now: `before` when the change left it as it was (nothing written). */
  after: Subscription;
}

/**
 * Reads a subscription, applies `change` and stores the result over the version it was read at
 * (`replaceSubscription`): when another process changed it meanwhile (an admin container, a
 * dispatcher disabling it), the write loses, and `change` is applied again to the subscription
 * read back, so neither change is lost (a rotated secret, a disable). `change` may run more than
 * once (what else it writes must bear repeating), and returns `undefined` to leave the subscription as it is. Returns `undefined` when the
 * subscription does not exist, or was removed meanwhile (nothing written). Throws a retryable
 * {@link SubscriptionWriteConflictError} after {@link SUBSCRIPTION_WRITE_TRIES} lost writes.
 * Changes in one process should run one at a time per subscription (`endpointWrites`): then only
 * other processes' writes make a write lose.
 * @example await changeSubscription(store, id, (current) => ({ ...current, description }))
 */
export async function changeSubscription(
  store: Pick<WebhookStore, 'getSubscription' | 'replaceSubscription'>,
  id: string,
  change: (current: Subscription) => Promise<Subscription | undefined> | Subscription | undefined,
): Promise<SubscriptionChanged | undefined> {
  for (let tries = 1; ; tries++) {
    const before = await store.getSubscription(id);
    if (!before) return undefined;
    const next = await change(before);
    if (!next) return { before, after: before };
    const after = await store.replaceSubscription(next, { ifVersion: before.version });
    if (after) return { before, after };
    if (tries === SUBSCRIPTION_WRITE_TRIES)
      throw new SubscriptionWriteConflictError(
        `subscription ${id} was changed by others ${tries} times while this change was written`,
        { retryable: true },
      );
  }
}
