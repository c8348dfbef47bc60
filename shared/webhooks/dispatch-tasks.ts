import type { DispatchLane } from '../publish/publisher.ts';
import { attemptDelivery } from './attempt.ts';
import { deliverInline } from './deliver-inline.ts';
import type { DispatchBatch } from './dispatch-batch.ts';
import type { InlineDelivery } from './inline-delivery.ts';
import type { TurnDeferral } from './line-wait.ts';
import type { SubjectTurn } from './subject-turns.ts';

/** A delivery message: one attempt of a stored delivery (a retry, a deferral, a replay). */
export interface QueuedAttempt {
  deliveryId: string;
  subscriptionId?: string;
  /** The subject of the delivery's event, when the message names it (see DeliveryMessage). */
  subject?: string;
  /** The lane of work deferred for its turn at a slow endpoint (see DeliveryMessage). */
  lane?: DispatchLane;
  /** Sent ahead for a live change of its subject (see DeliveryMessage). */
  ahead?: true;
  recordIds: readonly string[];
}

/** One unit of work, run in its endpoint's queue. */
export type Task =
  | { kind: 'inline'; inline: InlineDelivery }
  | { kind: 'queued'; queued: QueuedAttempt };

/**
 * Runs every task through the process's endpoint scheduler: up to the endpoint's (adaptive)
 * concurrency at once, never two of one subject at once, a subject's tasks in the order the
 * queue handed them over (which is detection order; `turns` keep it across the batches running
 * at once), and different endpoints independently of each other.
 */
export async function runByEndpoint(
  tasks: readonly Task[],
  batch: DispatchBatch,
  lane: DispatchLane = 'live',
  turns: ReadonlyMap<string, SubjectTurn> = new Map(),
): Promise<void> {
  // Each task's turn key once (a string built per call).
  const turnKeys = tasks.map(turnKey);
  const handOff = new TurnHandOff(turns, turnKeys);
  const keys = await Promise.all(tasks.map((task) => endpointKey(task, batch)));
  await Promise.all(
    tasks.map(async (task, index) => {
      const endpoint = keys[index];
      const turn = turnKeys[index]!;
      if (endpoint === undefined) {
        handOff.handedOver(turn);
        return;
      }
      const subscription = await batch.subscription(endpoint).catch(() => undefined);
      // The endpoint's state is read before a slot is taken: a slot held while a store read
      // waits behind other batches' writes is a delivery the endpoint is not getting.
      // So is what the waiting ledger lists for the task's subject there (read where it has any).
      if (subscription?.enabled) {
        const subject = ledgerSubjectOf(task);
        const state = batch.endpoint(subscription.id);
        const waiting =
          subject === undefined ? undefined : batch.sharedWaiting(subscription.id, subject);
        await (waiting ? Promise.all([state, waiting]) : state).catch(() => undefined);
      }
      await handOff.turnOf(turn)?.ready;
      const taskLane = laneOfTask(task, endpoint, batch, lane);
      // Its URL's slots, shared with the other subscriptions that post there (a removed
      // subscription's task sends nothing: its own).
      const shared = subscription === undefined ? undefined : batch.sharedEndpoint(subscription);
      const running = batch.deps.scheduler.run(
        shared?.endpoint ?? endpoint,
        subjectOf(task, endpoint),
        shared?.settings ?? {},
        (deferUntil) => runTask(task, batch, taskLane, deferUntil),
        taskLane,
        batch.deadline,
      );
      // The scheduler queued the task as it was called: the subject's next event may follow.
      handOff.handedOver(turn);
      await running;
    }),
  );
}

/**
 * The lane a task is work of at its endpoint: the batch's, or its message's; a live change the
 * bulk lane carried for its subject's order (InlineDelivery.askedLive) is live. A bulk delivery
 * message (deferred for its turn, a retry, a pause: see messageLane) comes back on the dispatch
 * queue and stays behind live work, unless a later delivery of its subject waits behind it (a
 * live change deferred behind a backfill's `created` that failed once): nothing of the subject
 * moves until it is done, so it starts as live work.
 */
function laneOfTask(
  task: Task,
  subscriptionId: string,
  batch: DispatchBatch,
  lane: DispatchLane,
): DispatchLane {
  if (task.kind === 'inline') return task.inline.askedLive ? 'live' : lane;
  if (task.queued.lane === undefined) return lane;
  const { lane: asked, subject, deliveryId } = task.queued;
  const waitedFor =
    asked === 'bulk' &&
    subject !== undefined &&
    batch.deps.scheduler.waitsBehind(subscriptionId, subject, deliveryId);
  return waitedFor ? 'live' : asked;
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

/** The key of an event's turn (see turnKey). */
export const eventTurn = (eventId: string) => `event:${eventId}`;
/** The key of a delivery message's record's turn (see turnKey). */
export const recordTurn = (messageId: string) => `record:${messageId}`;

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

  /** The turn a task with this {@link turnKey} takes part in, if any. */
  turnOf(key: string): SubjectTurn | undefined {
    return this.turns.get(key);
  }

  /** Notes that a task with this {@link turnKey} was handed to the scheduler (or given up). */
  handedOver(key: string): void {
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

/**
 * Runs a task asked in `lane`: its attempt, or with `deferUntil` (its turn in a slow endpoint's
 * line, or the process's stop) its deferral in that lane's line. Once the process stops sending
 * (EndpointScheduler.stopSending), a delivery message's task leaves its message in the queue as
 * it is, with no write at all (see {@link DispatchBatch.leave}).
 */
async function runTask(
  task: Task,
  batch: DispatchBatch,
  lane: DispatchLane,
  deferUntil?: number,
): Promise<void> {
  const line: TurnDeferral | undefined =
    deferUntil === undefined ? undefined : { until: deferUntil, lane };
  const recordIds = task.kind === 'inline' ? task.inline.recordIds : task.queued.recordIds;
  // Its delivery stays pending as stored, and the next start receives the message again in its
  // place, as after a crash (a queue that opens makes every message not deleted visible again;
  // the waiting deliveries it names keep a subject's order), where a deferral would cost a read,
  // a write and a message per delivery: seconds, for the thousands a stopping lane may hold.
  if (task.kind === 'queued' && batch.deps.scheduler.stopping) {
    batch.leave(recordIds);
    return;
  }
  try {
    if (task.kind === 'inline') await deliverInline(task.inline, batch, lane, line);
    else {
      const { deliveryId, subject, ahead } = task.queued;
      await attemptDelivery(deliveryId, batch.deps, batch, {
        recordIds,
        subject,
        line,
        lane,
        ahead,
      });
    }
  } catch (error) {
    const deliveryId = task.kind === 'inline' ? task.inline.delivery.id : task.queued.deliveryId;
    batch.fail(recordIds, `delivery ${deliveryId} failed`, error);
  }
}
