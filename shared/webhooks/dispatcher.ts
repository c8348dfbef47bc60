import type { SQSBatchResponse } from 'aws-lambda';
import { BridgeError, fieldIssues } from '../errors.ts';
import type { DispatchLane } from '../publish/publisher.ts';
import { attemptDelivery } from './attempt.ts';
import { DispatchBatch } from './dispatch-batch.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { subjectKey } from './event-subject.ts';
import {
  deliverInline,
  type IncomingEvent,
  type InlineDelivery,
  planFanOut,
  writeInlineDeliveries,
} from './fan-out.ts';
import type { TurnDeferral } from './line-wait.ts';
import {
  type DispatchEvent,
  DispatchEventSchema,
  DispatchMessageSchema,
  isDeliveryMessage,
} from './messages.ts';
import type { SubjectTurn } from './subject-turns.ts';

/** The parts of an SQS record the dispatcher reads (real `SQSRecord`s fit). */
export interface DispatchRecord {
  messageId: string;
  body: string;
}

/** A delivery message: one attempt of a stored delivery (a retry, a deferral, a replay). */
interface QueuedAttempt {
  deliveryId: string;
  subscriptionId?: string;
  /** The subject of the delivery's event, when the message names it (see DeliveryMessage). */
  subject?: string;
  /** The lane of work deferred for its turn at a slow endpoint (see DeliveryMessage). */
  lane?: DispatchLane;
  recordIds: readonly string[];
}

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
 * How long a dispatcher invocation keeps, at the end, for the requests it started before its
 * deadline and for its writes (events, deliveries, deferrals, queue messages): the time
 * besides its requests that infra/props.ts allows a batch.
 */
export const DISPATCH_WRITES_MARGIN_MS = 10_000;

/**
 * The deadline of a batch given `remainingMs` of its Lambda invocation (the context's
 * getRemainingTimeInMillis()): one request's timeout and {@link DISPATCH_WRITES_MARGIN_MS}
 * before the invocation ends. Pure.
 * @example dispatchDeadline(0, 180_000, 10_000) === 160_000
 */
export function dispatchDeadline(
  nowMs: number,
  remainingMs: number,
  deliveryTimeoutMs: number,
): number {
  return nowMs + remainingMs - deliveryTimeoutMs - DISPATCH_WRITES_MARGIN_MS;
}

/** One unit of work, run in its endpoint's queue. */
type Task = { kind: 'inline'; inline: InlineDelivery } | { kind: 'queued'; queued: QueuedAttempt };

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
 * messages of the whole batch go out together (SendMessageBatch). Malformed bodies are
 * logged and dropped (retrying cannot fix them); records that failed on storage or the
 * queue are returned as `batchItemFailures` for SQS to retry, which is safe: fan-out and
 * attempts are idempotent per delivery.
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
      const item = { ...parsed, recordIds: [record.messageId] };
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
        events.set(parsed.event.id, { ...parsed, recordIds: [record.messageId] });
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
    }
    await writeInlineDeliveries(batch);
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
  const inline = await planFanOut([{ event: parsed, body, recordIds: [parsed.id] }], batch);
  await runByEndpoint(
    inline.map((item): Task => ({ kind: 'inline', inline: item })),
    batch,
  );
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

type ParsedBody =
  | {
      kind: 'delivery';
      deliveryId: string;
      subscriptionId?: string;
      subject?: string;
      lane?: DispatchLane;
    }
  | { kind: 'event'; event: DispatchEvent; body: string };

function parseBody(record: DispatchRecord, deps: DispatcherDeps): ParsedBody | undefined {
  let json: unknown;
  try {
    json = JSON.parse(record.body);
  } catch {
    json = undefined;
  }
  const message = DispatchMessageSchema.safeParse(json);
  if (!message.success) {
    deps.metrics.count('malformed');
    deps.logger.warn('dropping malformed dispatch message', {
      messageId: record.messageId,
      issues: fieldIssues(message.error)
        .slice(0, 3)
        .map((i) => `${i.path || '(root)'}: ${i.message}`),
    });
    return undefined;
  }
  if (isDeliveryMessage(message.data)) {
    const { deliveryId, subscriptionId, subject, lane } = message.data;
    return { kind: 'delivery', deliveryId, subscriptionId, subject, lane };
  }
  // Serialise the event as received (the raw `detail`, not the parsed copy, which may reorder
  // keys): these exact bytes are stored, signed and POSTed.
  const detail = typeof json === 'object' && json !== null && 'detail' in json ? json.detail : null;
  return { kind: 'event', event: message.data.detail, body: JSON.stringify(detail) };
}

/**
 * Runs every task through the process's endpoint scheduler: up to the endpoint's (adaptive)
 * concurrency at once, never two of one subject at once, a subject's tasks in the order the
 * queue handed them over (which is detection order; `turns` keep it across the batches running
 * at once), and different endpoints independently of each other.
 */
async function runByEndpoint(
  tasks: readonly Task[],
  batch: DispatchBatch,
  lane: DispatchLane = 'live',
  turns: ReadonlyMap<string, SubjectTurn> = new Map(),
): Promise<void> {
  const handOff = new TurnHandOff(turns, tasks.map(turnKey));
  const keys = await Promise.all(tasks.map((task) => endpointKey(task, batch)));
  await Promise.all(
    tasks.map(async (task, index) => {
      const endpoint = keys[index];
      if (endpoint === undefined) {
        handOff.handedOver(task);
        return;
      }
      const subscription = await batch.subscription(endpoint).catch(() => undefined);
      // The endpoint's state is read before a slot is taken: a slot held while a store read
      // waits behind other batches' writes is a delivery the endpoint is not getting.
      // So is what the waiting ledger lists for the task's subject there (read where it has any).
      if (subscription?.enabled) {
        const subject = ledgerSubjectOf(task);
        await Promise.all([
          batch.endpoint(subscription.id),
          subject === undefined ? undefined : batch.sharedWaiting(subscription.id, subject),
        ]).catch(() => undefined);
      }
      await handOff.turnOf(task)?.ready;
      // A bulk delivery deferred for its turn comes back on this queue, still behind live work.
      const taskLane = task.kind === 'queued' ? (task.queued.lane ?? lane) : lane;
      // Its URL's slots, shared with the other subscriptions that post there (a removed
      // subscription's task sends nothing: its own).
      const shared = subscription === undefined ? undefined : batch.sharedEndpoint(subscription);
      const running = batch.deps.scheduler.run(
        shared?.endpoint ?? endpoint,
        subjectOf(task, endpoint),
        shared?.settings ?? {},
        (deferUntil) =>
          runTask(
            task,
            batch,
            deferUntil === undefined ? undefined : { until: deferUntil, lane: taskLane },
          ),
        taskLane,
        batch.deadline,
      );
      // The scheduler queued the task as it was called: the subject's next event may follow.
      handOff.handedOver(task);
      await running;
    }),
  );
}

/**
 * Whose turn a task takes part in (see SubjectTurns): its event's (an event's tasks for every
 * subscription share one), or its delivery message's record's.
 */
function turnKey(task: Task): string {
  return task.kind === 'inline'
    ? eventTurn(task.inline.delivery.eventId)
    : recordTurn(task.queued.recordIds[0]!);
}

const eventTurn = (eventId: string) => `event:${eventId}`;
const recordTurn = (messageId: string) => `record:${messageId}`;

/**
 * Passes each turn once every task that takes part in it has been handed to the scheduler (or
 * given up); a turn with no task passes at once.
 */
class TurnHandOff {
  private readonly remaining = new Map<string, number>();

  constructor(
    private readonly turns: ReadonlyMap<string, SubjectTurn>,
    keys: readonly string[],
  ) {
    for (const key of keys) this.remaining.set(key, (this.remaining.get(key) ?? 0) + 1);
    for (const [key, turn] of turns) if (!this.remaining.has(key)) turn.pass();
  }

  turnOf(task: Task): SubjectTurn | undefined {
    return this.turns.get(turnKey(task));
  }

  handedOver(task: Task): void {
    const key = turnKey(task);
    const left = (this.remaining.get(key) ?? 1) - 1;
    this.remaining.set(key, left);
    if (left === 0) this.turns.get(key)?.pass();
  }
}

/**
 * What orders a task among its endpoint's: its event's subject at its subscription (a retry
 * whose message names it shares it: it keeps its place among the subject's deliveries; another
 * subscription to the same URL keeps its own order); an older retry message is its own.
 */
function subjectOf(task: Task, subscriptionId: string): string {
  if (task.kind === 'inline') return `${subscriptionId} subject:${task.inline.subject}`;
  const { subject, deliveryId } = task.queued;
  return subject === undefined ? `delivery:${deliveryId}` : `${subscriptionId} subject:${subject}`;
}

/** The subject a task's delivery is noted under in the waiting ledger, when known. */
function ledgerSubjectOf(task: Task): string | undefined {
  return task.kind === 'inline' ? task.inline.subject : task.queued.subject;
}

/** The subscription a task goes to; a delivery message without one is looked up (older messages). */
async function endpointKey(task: Task, batch: DispatchBatch): Promise<string | undefined> {
  if (task.kind === 'inline') return task.inline.delivery.subscriptionId;
  const { deliveryId, subscriptionId, recordIds } = task.queued;
  if (subscriptionId !== undefined) return subscriptionId;
  try {
    const delivery = await batch.deps.store.getDelivery(deliveryId);
    return delivery?.subscriptionId ?? `unknown:${deliveryId}`;
  } catch (error) {
    batch.fail(recordIds, 'delivery lookup failed', error);
    return undefined;
  }
}

/** Runs a task: its attempt, or with `line` (a slow endpoint's line) its deferral. */
async function runTask(task: Task, batch: DispatchBatch, line?: TurnDeferral): Promise<void> {
  const recordIds = task.kind === 'inline' ? task.inline.recordIds : task.queued.recordIds;
  try {
    if (task.kind === 'inline') await deliverInline(task.inline, batch, line);
    else {
      const { deliveryId, subject } = task.queued;
      await attemptDelivery(deliveryId, batch.deps, batch, recordIds, subject, line);
    }
  } catch (error) {
    const deliveryId = task.kind === 'inline' ? task.inline.delivery.id : task.queued.deliveryId;
    batch.fail(recordIds, `delivery ${deliveryId} failed`, error);
  }
}
