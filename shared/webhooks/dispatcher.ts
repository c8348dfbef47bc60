import type { SQSBatchResponse } from 'aws-lambda';
import { BridgeError } from '../errors.ts';
import type { DispatchLane } from '../publish/publisher.ts';
import { withMembers } from '../with-members.ts';
import { deliveryOrigin } from './delivery-counter.ts';
import { DispatchBatch } from './dispatch-batch.ts';
import { type DispatchRecord, parseBody } from './dispatch-record.ts';
import {
  eventTurn,
  type QueuedAttempt,
  recordTurn,
  runByEndpoint,
  type Task,
} from './dispatch-tasks.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { subjectKey } from './event-subject.ts';
import { planFanOut } from './fan-out.ts';
import type { IncomingEvent, InlineDelivery } from './inline-delivery.ts';
import { type DispatchEvent, DispatchEventSchema } from './messages.ts';
import type { SubjectTurn } from './subject-turns.ts';
import { writeInlineDeliveries } from './write-inline-deliveries.ts';

/** How a consumer of one dispatch lane runs its batches (the local run has two lanes). */
export interface DispatchBatchOptions {
  /** The lane the batch came from: live work starts before bulk work at an endpoint. */
  lane?: DispatchLane;
  /**
   * Told of each event whose fan-out and first attempts are done, once per record that carried
   * it and did not fail (a record that failed comes back later), with that record's message id
   * (none for a copy another batch of the process holds).
   */
  onEventHandled?: (event: DispatchEvent, messageId: string | undefined) => void;
  /**
   * When the batch must start no more requests (epoch ms; none: it never must, as in the local
   * run): a Lambda invocation's end less what the requests in flight then and the batch's writes
   * need (see dispatchDeadline). Deliveries not sent by then are deferred a moment instead
   * (pending, with a delayed message, in their subject's order), so the batch ends, its attempts
   * recorded, before the invocation's timeout.
   */
  deadline?: number;
}

/**
 * Handles one batch from the dispatch queue, the core of the Lambda handler and of the
 * local loop alike. Bodies are EventBridge envelopes or delivery messages. An event is
 * stored once and delivered in this same invocation to each enabled subscription it
 * matches (the first attempt needs no stored delivery beforehand and no queue message);
 * only a delivery that needs a retry, or whose endpoint is paused, gets a delayed message.
 * Delivery messages make one attempt each. Deliveries to one endpoint run concurrently up
 * to its adaptive limit (the process-wide endpoint scheduler), one at a time per subject and
 * in detection order; a 429's pause holds for every batch of the process; different
 * endpoints run independently: what would wait too long at a slow endpoint is deferred to
 * about its turn (see planLineDeferrals), so a batch does not hold its worker, and with it
 * other endpoints' deliveries, for a slow endpoint's line. Queue
 * messages of the whole batch go out together (SendMessageBatch), but those due while the batch
 * still runs (a retry beside another endpoint's hanging request) go out then (BatchEarlySends).
 * Malformed bodies are logged and dropped (retrying cannot fix them); records that failed on
 * storage or the queue are returned as `batchItemFailures` for SQS to retry, which is safe:
 * fan-out and attempts are idempotent per delivery.
 * @example await processDispatchBatch(sqsEvent.Records, deps)
 */
export async function processDispatchBatch(
  records: readonly DispatchRecord[],
  deps: DispatcherDeps,
  options: DispatchBatchOptions = {},
): Promise<SQSBatchResponse> {
  const batch = new DispatchBatch(deps, options.deadline);
  const events = new Map<string, IncomingEvent>();
  /** Copies of events another batch of this process holds: acknowledged, left to that batch. */
  const heldElsewhere: DispatchEvent[] = [];
  const queued: QueuedAttempt[] = [];
  // Taken before the batch awaits anything: in the order the queue handed the records over.
  const turns = new Map<string, SubjectTurn>();
  for (const record of records) {
    const parsed = parseBody(record, deps);
    if (!parsed) continue;
    if (parsed.kind === 'delivery') {
      const item = withMembers(parsed, { recordIds: [record.messageId] });
      queued.push(item);
      if (item.subject !== undefined)
        turns.set(recordTurn(record.messageId), deps.turns.take(item.subject));
    } else {
      // The same event twice in one batch is fanned out once; both records share the result.
      const seen = events.get(parsed.event.id);
      if (seen) seen.recordIds.push(record.messageId);
      else if (deps.eventsInFlight.has(parsed.event.id)) {
        // Published again (same change, same id) while a batch of this process still fans the
        // first copy out or waits at an endpoint, before it is stored: sending it again would
        // deliver it twice. That batch's own record keeps the event until it is done (a failure
        // there brings it back), so this copy is acknowledged.
        heldElsewhere.push(parsed.event);
      } else {
        events.set(parsed.event.id, withMembers(parsed, { recordIds: [record.messageId] }));
        deps.eventsInFlight.add(parsed.event.id);
        turns.set(eventTurn(parsed.event.id), deps.turns.take(subjectKey(parsed.event)));
      }
    }
  }
  try {
    try {
      const inline = events.size > 0 ? await planFanOut([...events.values()], batch) : [];
      const tasks: Task[] = [
        ...inline.map((item): Task => ({ kind: 'inline', inline: item })),
        ...queued.map((item): Task => ({ kind: 'queued', queued: item })),
      ];
      await runByEndpoint(tasks, batch, options.lane, turns);
    } finally {
      for (const turn of turns.values()) turn.pass();
      // Its final writes do the rest; a batch that failed leaves no timer behind.
      await batch.early.finish();
    }
    await writeInlineDeliveries(batch);
    countCopies(batch, events.values(), heldElsewhere);
    await batch.flush();
  } finally {
    for (const id of events.keys()) deps.eventsInFlight.delete(id);
  }
  if (options.onEventHandled) {
    for (const { event, recordIds } of events.values())
      for (const id of recordIds) if (!batch.failures.has(id)) options.onEventHandled(event, id);
    for (const event of heldElsewhere) options.onEventHandled(event, undefined);
  }
  return { batchItemFailures: [...batch.failures].map((itemIdentifier) => ({ itemIdentifier })) };
}

/**
 * Counts as handed on the copies of an event acknowledged beside the one fanned out: a second
 * record of it in the batch, or a copy whose first is held by another batch of this process.
 * The poller counts every publish of an event (a backfill's `created` and a live poll's
 * announcement of it, a window read again after a restart), and a backfill waits until the
 * dispatcher has counted as many (eventsQueued); a copy fanned out after the first was stored
 * counts already (resumeFanOut). Copies of a failed event come back and count then.
 */
function countCopies(
  batch: DispatchBatch,
  events: Iterable<IncomingEvent>,
  heldElsewhere: readonly DispatchEvent[],
): void {
  for (const { event, recordIds } of events) {
    if (recordIds.length < 2 || recordIds.some((id) => batch.failures.has(id))) continue;
    const origin = deliveryOrigin(event);
    for (let copy = 1; copy < recordIds.length; copy++) batch.counts.count(origin, 'events');
  }
  for (const event of heldElsewhere) batch.counts.count(deliveryOrigin(event), 'events');
}

/**
 * Fans one event out and makes its first attempts, as a batch of its own would. Idempotent:
 * a repeated event reuses its stored copy and its deterministic delivery ids. Returns the
 * number of deliveries attempted or deferred; throws a retryable {@link BridgeError} when
 * storage or the queue failed.
 */
export async function fanOutEvent(
  event: DispatchEvent,
  body: string,
  deps: DispatcherDeps,
): Promise<number> {
  const parsed = DispatchEventSchema.parse(event);
  const batch = new DispatchBatch(deps);
  let inline: InlineDelivery[] = [];
  try {
    inline = await planFanOut([{ event: parsed, body, recordIds: [parsed.id] }], batch);
    await runByEndpoint(
      inline.map((item): Task => ({ kind: 'inline', inline: item })),
      batch,
    );
  } finally {
    await batch.early.finish();
  }
  await writeInlineDeliveries(batch);
  await batch.flush();
  if (batch.failures.size > 0) {
    throw new BridgeError(`fan-out of ${parsed.id} failed on storage or the queue`, {
      retryable: true,
    });
  }
  return inline.length;
}

/**
 * What every batch does as it ends, without a batch: the waiting deliveries the memory's sweep
 * found more than 15 minutes overdue are asked about in the store, and those still pending are
 * enqueued again (DispatchBatch.flush; nothing is read while none is). For a process that gets
 * no batch to do it (the local run while idle: see startIdleOverdueCheck).
 */
export async function checkLongOverdueWaiting(deps: DispatcherDeps): Promise<void> {
  await new DispatchBatch(deps).flush();
}
