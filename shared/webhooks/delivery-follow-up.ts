import type { DispatchLane } from '../publish/publisher.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { type DeliveryMessage, deliveryMessage } from './messages.ts';
import type { Delivery } from './store.ts';

/** Slack for a message that arrives a little before its delivery is due (clock skew), in ms. */
export const EARLY_ARRIVAL_SLACK_MS = 1000;

/** `delivery` dead-lettered for `reason` at `atMs` (version unchanged: the caller sets it). */
export function dead(delivery: Delivery, reason: string, atMs: number): Delivery {
  return { ...delivery, status: 'dead', deadReason: reason, deadAt: atMs, updatedAt: atMs };
}

/** What the follow-ups of a delivery's write need of its dispatch batch (DispatchBatch is one). */
export interface FollowUpBatch {
  readonly deps: DispatcherDeps;
  /**
   * Sends `message` due at `dueAt` with the batch's others; `recordIds` fail if it cannot be.
   * `waitsInLine`: see QueuedDelivery.
   */
  enqueue(
    message: DeliveryMessage,
    dueAt: number,
    recordIds: readonly string[],
    waitsInLine?: boolean,
  ): void;
  /** Tells the batch's waiting ledger whether the delivery still waits (see DispatchBatch). */
  shareWaiting(delivery: Delivery, subject: string | undefined, waited: boolean): void;
}

/**
 * The lane a pending delivery's message carries (see DeliveryMessageSchema): the lane of the
 * slow endpoint's line it waits in (`inLine`), else `bulk` for work asked in the bulk lane
 * (`askedIn`), whatever it waits for (its retry, a Retry-After pause, a deadline), so that it
 * comes back behind live work at its endpoint as it went. Without it a backfill's deliveries that
 * met a pause or failed came back as live work: under an endpoint answering 429 now and then,
 * live changes waited minutes behind thousands of them. Pure.
 * @example messageLane(undefined, 'bulk') === 'bulk'
 */
export function messageLane(
  inLine: DispatchLane | undefined,
  askedIn: DispatchLane | undefined,
): DispatchLane | undefined {
  return inLine ?? (askedIn === 'bulk' ? 'bulk' : undefined);
}

/**
 * What follows a delivery write that won: a retry message for a pending delivery, the
 * dead-letter listing for a dead one. `recordIds` fail if the message cannot be sent. `inLine`:
 * the lane of the slow endpoint's line it waits in; `askedIn`: the lane its work was asked in
 * (see {@link messageLane}).
 */
export async function afterDeliveryWrite(
  written: Delivery,
  batch: FollowUpBatch,
  recordIds: readonly string[],
  subject?: string,
  inLine?: DispatchLane,
  askedIn?: DispatchLane,
): Promise<void> {
  const { deps } = batch;
  if (written.status === 'pending') {
    const message = deliveryMessage(written, subject, messageLane(inLine, askedIn));
    batch.enqueue(message, written.nextAttemptAt, recordIds, inLine !== undefined);
  } else if (written.status === 'dead') {
    await deps.store.addDeadLetter(written);
    deps.metrics.count('deadLettered');
  }
}

/**
 * Once a delivery of `subject` that waited (a retry, a deferral) is settled (delivered,
 * dead-lettered), sends the subject's next waiting delivery at the endpoint a message due now,
 * if it waits for nothing else (due within EARLY_ARRIVAL_SLACK_MS: not a retry of its own, not
 * behind a pause). Its own message went with a delay of whole seconds to just after this one's
 * due time, and one that came before this one was settled was put off another second: a
 * subject's held-back events went out a few a second. Released, each follows the one before
 * within a queue round trip; its attempt still checks everything (order, pauses). The message
 * it already has stays: the later of the two finds it delivered and sends nothing. Called by
 * the attempt of a waiting delivery only: a first attempt settles nothing anyone waits for.
 * Only where this process's memory is the order's whole record (no waiting ledger: the local
 * run, one process, whose scheduler runs a subject's copies one after the other): with a
 * ledger, another container may hold the delivery's other message, and both could be sent at
 * once.
 */
export function releaseNextOfSubject(
  settled: Delivery,
  subject: string | undefined,
  batch: FollowUpBatch,
): void {
  const { deps } = batch;
  if (subject === undefined || deps.waitingLedger !== undefined) return;
  const next = deps.scheduler.firstWaiting(settled.subscriptionId, subject);
  const now = deps.clock.now();
  if (next === undefined || next.dueAt > now + EARLY_ARRIVAL_SLACK_MS) return;
  // As live work, whatever lane its record says: a subject's events held back behind one
  // another are a live change's (a backfill's `created` ahead of it), and its own message may
  // wait in the bulk lane's backlog.
  const message = deliveryMessage(
    { id: next.deliveryId, subscriptionId: settled.subscriptionId },
    subject,
    'live',
  );
  // No record rests on it: if it cannot be sent, the delivery's own message still comes.
  batch.enqueue(message, now, []);
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
    deps.scheduler.noteWaiting(
      next.subscriptionId,
      subject,
      next.id,
      next.nextAttemptAt,
      next.lane,
    );
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
  batch: FollowUpBatch,
  waited: boolean,
): void {
  noteNextAttempt(next, subject, batch.deps);
  batch.shareWaiting(next, subject, waited);
}
