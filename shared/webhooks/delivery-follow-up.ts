import type { DispatchLane } from '../publish/publisher.ts';
import type { DispatchBatch } from './dispatch-batch.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { deliveryMessage } from './messages.ts';
import type { Delivery } from './store.ts';

/** `delivery` dead-lettered for `reason` at `atMs` (version unchanged: the caller sets it). */
export function dead(delivery: Delivery, reason: string, atMs: number): Delivery {
  return { ...delivery, status: 'dead', deadReason: reason, deadAt: atMs, updatedAt: atMs };
}

/**
 * What follows a delivery write that won: a retry message for a pending delivery, the
 * dead-letter listing for a dead one. `recordIds` fail if the message cannot be sent.
 */
export async function afterDeliveryWrite(
  written: Delivery,
  batch: DispatchBatch,
  recordIds: readonly string[],
  subject?: string,
  inLine?: DispatchLane,
): Promise<void> {
  const { deps } = batch;
  if (written.status === 'pending') {
    batch.enqueue(deliveryMessage(written, subject, inLine), written.nextAttemptAt, recordIds);
  } else if (written.status === 'dead') {
    await deps.store.addDeadLetter(written);
    deps.metrics.count('deadLettered');
  }
}

/**
 * Notes in the process's scheduler whether a delivery of `subject` still waits for a later
 * attempt (pending) or no longer (delivered, dead): a subject's later events wait behind the
 * waiting ones (see EndpointScheduler.dueAhead). A delivery whose subject is not known keeps
 * no place.
 */
export function noteNextAttempt(
  next: Delivery,
  subject: string | undefined,
  deps: DispatcherDeps,
): void {
  if (subject === undefined) return;
  if (next.status === 'pending')
    deps.scheduler.noteWaiting(next.subscriptionId, subject, next.id, next.nextAttemptAt);
  else deps.scheduler.noteSettled(next.subscriptionId, subject, next.id);
}

/**
 * {@link noteNextAttempt}, and the same for the batch's waiting ledger (see
 * DispatchBatch.shareWaiting): `waited` says the delivery was pending before (a retry, a
 * deferral), so that it is removed from the ledger once settled.
 */
export function noteNextAttemptInBatch(
  next: Delivery,
  subject: string | undefined,
  batch: DispatchBatch,
  waited: boolean,
): void {
  noteNextAttempt(next, subject, batch.deps);
  batch.shareWaiting(next, subject, waited);
}
