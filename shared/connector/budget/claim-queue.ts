import type { BudgetClaim, BudgetGrant } from './budget-types.ts';

/** A claim waiting in its queue for a grant. */
export interface Waiter {
  claim: BudgetClaim;
  resolve: (grant: BudgetGrant) => void;
  reject: (error: unknown) => void;
}

/**
 * Puts `claim` at the end of `queue` (before it returns): the promise of its grant, settled by
 * whoever serves the queue through the waiter's `resolve` or `reject`. When `signal` aborts
 * first, the waiter leaves the queue and the promise rejects with the signal's reason.
 */
export function queueClaim(
  queue: Waiter[],
  claim: BudgetClaim,
  signal: AbortSignal | undefined,
): Promise<BudgetGrant> {
  return new Promise<BudgetGrant>((resolve, reject) => {
    const onAbort = () => {
      const index = queue.indexOf(waiter);
      if (index >= 0) queue.splice(index, 1);
      reject(signal?.reason);
    };
    const settle = () => signal?.removeEventListener('abort', onAbort);
    const waiter: Waiter = {
      claim,
      resolve: (grant) => {
        settle();
        resolve(grant);
      },
      reject: (error) => {
        settle();
        reject(error);
      },
    };
    queue.push(waiter);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
