import type { DispatchLane } from '../publish/publisher.ts';
import { withMembers } from '../with-members.ts';
import { dead, noteNextAttemptInBatch } from './delivery-follow-up.ts';
import type { DispatchBatch } from './dispatch-batch.ts';
import { DEADLINE_DEFER_MS } from './endpoint-lane-pump.ts';
import { endpointOfUrl } from './endpoint-of-url.ts';
import type { InlineDelivery } from './inline-delivery.ts';
import { laneWaitedIn, type TurnDeferral } from './line-wait.ts';
import { sendAttempt } from './send-attempt.ts';
import type { Attempt, Delivery } from './store.ts';

/**
 * Makes the first attempt of a planned delivery and creates it, in one write, with the
 * attempt folded in: delivered, pending a retry (message enqueued), or dead-lettered. While
 * the endpoint is paused (`Retry-After`), or `line` is given (it would wait too long in a slow
 * endpoint's line), no request is sent: the delivery is created pending until then, its message
 * marked as waiting in that line when its turn there is what it waits for. A subscription disabled earlier in the batch dead-letters
 * it. `lane`: the lane the delivery was asked in; one cut off in flight by the process's stop
 * comes back as work of that lane, as those the stop deferred from the line do (see laneWaitedIn).
 * Creation is conditional, so a concurrent duplicate cannot create it twice.
 */
export async function deliverInline(
  task: InlineDelivery,
  batch: DispatchBatch,
  lane: DispatchLane,
  line?: TurnDeferral,
): Promise<void> {
  const { deps } = batch;
  const now = deps.clock.now();
  const subscription = await batch.subscription(task.delivery.subscriptionId);
  let next: Delivery;
  let log: Attempt[] | undefined;
  let deferred = false;
  let inLine: DispatchLane | undefined;
  if (!subscription?.enabled) {
    next = dead(
      task.delivery,
      subscription ? 'subscription disabled' : 'subscription removed',
      now,
    );
  } else {
    const endpoint = await batch.endpoint(subscription.id);
    // Not before the endpoint's Retry-After (nor this process's deferral for want of slots),
    // nor before this subject's earlier events that wait for a later attempt: a subject's events
    // arrive in the order they were detected (it goes just after the last of them).
    const pausedUntil = Math.max(
      endpoint.pausedUntil ?? 0,
      deps.scheduler.holdUntil(endpointOfUrl(subscription.url)) ?? 0,
      line?.until ?? 0,
    );
    const after = await batch.notBefore(
      subscription.id,
      task.subject,
      task.delivery.id,
      lane === 'live',
    );
    // Nor after the batch's deadline (an invocation's end nears): another one sends it.
    const waitUntil = Math.max(pausedUntil, after ?? 0, batch.heldUntil());
    // Disabled meanwhile (a 410 another delivery met, the admin API): no request.
    const current = await batch.subscription(subscription.id);
    if (!current?.enabled) {
      const reason = current ? 'subscription disabled' : 'subscription removed';
      next = dead(task.delivery, reason, deps.clock.now());
    } else if (waitUntil > now) {
      next = { ...task.delivery, nextAttemptAt: waitUntil };
      deferred = true;
      inLine = laneWaitedIn(line, waitUntil, deps.scheduler.stopping);
    } else {
      const sent = await sendAttempt(
        { delivery: task.delivery, log: [], subscription: current, body: task.body },
        batch,
      );
      if (sent === 'stopped') {
        // Cut off by the process's stop: no attempt; created pending, due as the next run starts,
        // waiting in its lane as those the stop deferred from the line do.
        next = { ...task.delivery, nextAttemptAt: deps.clock.now() + DEADLINE_DEFER_MS };
        deferred = true;
        inLine = lane;
      } else {
        next = sent.next;
        log = sent.log;
      }
    }
  }
  // A backfill's delivery says so in its record: whatever path sends its next attempt keeps it
  // behind live work at the endpoint (see DeliverySchema.lane).
  if (lane === 'bulk') next = withMembers(next, { lane });
  noteNextAttemptInBatch(next, task.subject, batch, false);
  // Written with the rest of the batch's new deliveries (writeInlineDeliveries): no write
  // between two sends.
  batch.stagedDeliveries.push({
    delivery: next,
    attempts: log,
    listed: task.listed,
    deferred,
    inLine,
    lane,
    subject: task.subject,
    recordIds: task.recordIds,
    origin: task.origin,
  });
  // A batch that another endpoint's request still holds then writes it and sends its message.
  if (next.status === 'pending') batch.early.noteDue(next.nextAttemptAt);
}
