import { LoadingCache } from '../loading-cache.ts';
import { BatchEarlySends } from './batch-early-sends.ts';
import { BatchSubscriptions } from './batch-subscriptions.ts';
import { BatchWaiting } from './batch-waiting.ts';
import { DeliveryTally } from './delivery-counter.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { DEADLINE_DEFER_MS } from './endpoint-lane-pump.ts';
import type { EndpointSettings } from './endpoint-settings.ts';
import { type DeliveryMessage, deliveryMessage } from './messages.ts';
import { OverdueWaitingChecks } from './overdue-waiting-checks.ts';
import { delaySecondsUntil } from './queue.ts';
import {
  type Delivery,
  type EndpointState,
  freshEndpointState,
  type StoredEvent,
} from './store.ts';
import type { Subscription } from './subscription.ts';
import {
  afterPredecessors,
  FORGOTTEN_AFTER_MS,
  OVERDUE_PREDECESSOR_WAIT_MS,
  overdueWaitMs,
} from './waiting-deliveries.ts';
import { LEDGER_OVERDUE_PREDECESSOR_WAIT_MS, type WaitingMark } from './waiting-ledger.ts';
import {
  type FreshEvent,
  type InlineWriteBatch,
  type StagedDelivery,
  writeInlineDeliveries,
} from './write-inline-deliveries.ts';

/**
 * How long a batch goes by its read of an endpoint's state. In AWS another container may be
 * answered a `429` with `Retry-After` meanwhile and store the pause; a batch that runs longer
 * (a slow endpoint, a large batch) reads the state again before its next request to the
 * endpoint, so that pause holds here within about this long, at one read a second at most per
 * endpoint and batch (batches shorter than this read once, as before).
 */
export const ENDPOINT_STATE_FRESH_MS = 1_000;

/**
 * Events a batch keeps read (see DispatchBatch.storedEvent): more than the messages of any batch
 * (SQS hands a Lambda at most 10,000, the local lanes a few hundred), so bounding it only
 * guards memory.
 */
const EVENT_READS_KEPT = 10_000;

/**
 * What the work on one SQS batch shares, so each read and each queue request serves many
 * deliveries: the subscriptions (one Query per batch), each endpoint's state (read when the
 * batch first needs it, then kept current in memory with the batch's own changes, and read
 * again once {@link ENDPOINT_STATE_FRESH_MS} old: another process may have paused the endpoint
 * meanwhile), and the queue messages, sent together by {@link DispatchBatch.flush}. Records
 * whose work failed are collected for SQS to retry.
 */
export class DispatchBatch implements InlineWriteBatch {
  /** The batch's subscriptions (see BatchSubscriptions). */
  private readonly subscriptionsOfBatch: BatchSubscriptions;
  private readonly endpoints = new Map<string, { state: Promise<EndpointState>; readAt: number }>();
  /** The events read by the batch's deliveries, by id (see {@link storedEvent}). */
  private readonly eventReads = new LoadingCache<StoredEvent | undefined>(EVENT_READS_KEPT);
  private readonly outbox: {
    message: DeliveryMessage;
    dueAt: number;
    recordIds: readonly string[];
    waitsInLine: boolean;
  }[] = [];
  /** Message ids of records to report as `batchItemFailures`. */
  readonly failures = new Set<string>();
  /**
   * Events of the batch not stored before, by id: stored at the end of the batch (or when a
   * retry of theirs comes due while it still runs, see {@link early}) with the
   * outcome of their first attempts (see `writeInlineDeliveries`), once `listed` settles; their
   * records fail if not.
   */
  readonly freshEvents = new Map<string, FreshEvent>();
  /** New deliveries after their first attempt, written together at the end of the batch (or when one comes due before). */
  readonly stagedDeliveries: StagedDelivery[] = [];
  /**
   * Events fanned out and deliveries made, delivered and dead-lettered, per stream and detection
   * instant; added to the counter by {@link flush}.
   */
  readonly counts = new DeliveryTally();
  /** The batch's view of the waiting ledger, when the process has one. */
  private readonly waiting: BatchWaiting | undefined;
  /** Checks of waiting deliveries long overdue (see OverdueWaitingChecks). */
  private readonly overdue: OverdueWaitingChecks;
  /**
   * Sends what comes due while the batch still runs (see BatchEarlySends): told of each staged
   * delivery's next attempt, and finished before the batch's final writes.
   */
  readonly early: BatchEarlySends;

  /**
   * @param deadline When the batch must start no more requests (see DispatchBatchOptions); a
   *   delivery that reaches its request later is deferred a moment instead (see heldUntil).
   */
  constructor(
    readonly deps: DispatcherDeps,
    readonly deadline?: number,
  ) {
    this.waiting = deps.waitingLedger
      ? new BatchWaiting(deps.waitingLedger, deps.clock, deps.logger)
      : undefined;
    this.subscriptionsOfBatch = new BatchSubscriptions(deps);
    this.overdue = new OverdueWaitingChecks(deps, this.waiting, (message, dueAt, recordIds) =>
      this.enqueue(message, dueAt, recordIds),
    );
    this.early = new BatchEarlySends(deps.clock, () => this.sendEarly());
  }

  /**
   * Until when the batch holds its requests (0: it does not): past its deadline, a moment
   * (DEADLINE_DEFER_MS), so what has not been sent is deferred to another invocation.
   */
  heldUntil(): number {
    if (this.deadline === undefined) return 0;
    const now = this.deps.clock.now();
    return now >= this.deadline ? now + DEADLINE_DEFER_MS : 0;
  }

  /**
   * A stored event, read once per batch: a batch of retries of one event to many subscriptions
   * (a fan-out retried, a recovery after a restart) read it once per delivery before. A failed
   * read is not kept, so the next delivery of the event reads again.
   */
  storedEvent(id: string): Promise<StoredEvent | undefined> {
    return this.eventReads.get(id, () => this.deps.store.getEvent(id));
  }

  /** Every subscription by id, read once per batch (see BatchSubscriptions.all). */
  subscriptions(): Promise<Map<string, Subscription>> {
    return this.subscriptionsOfBatch.all();
  }

  /**
   * The endpoint `subscription` posts to and the settings its enabled subscriptions share there,
   * once per URL and batch (see BatchSubscriptions.sharedEndpoint).
   */
  sharedEndpoint(subscription: Subscription): { endpoint: string; settings: EndpointSettings } {
    return this.subscriptionsOfBatch.sharedEndpoint(subscription);
  }

  /**
   * One subscription: from the batch's list, or read again when the list lacks it, when this
   * process disabled it since, or once the batch's copy is SUBSCRIPTION_FRESH_MS old (see
   * BatchSubscriptions.subscription).
   */
  subscription(id: string): Promise<Subscription | undefined> {
    return this.subscriptionsOfBatch.subscription(id);
  }

  /**
   * Notes that a subscription was disabled during this batch; its later deliveries see it, and
   * so do those of the process's other batches (see BatchSubscriptions.markDisabled).
   */
  markDisabled(id: string): Promise<void> {
    return this.subscriptionsOfBatch.markDisabled(id);
  }

  /**
   * An endpoint's state: read (strongly consistent: pauses must hold), then as this batch left
   * it, and read again once {@link ENDPOINT_STATE_FRESH_MS} old (another process's pause).
   */
  endpoint(subscriptionId: string): Promise<EndpointState> {
    const now = this.deps.clock.now();
    const known = this.endpoints.get(subscriptionId);
    if (known && now - known.readAt < ENDPOINT_STATE_FRESH_MS) return known.state;
    const state = this.deps.store.getEndpointState(subscriptionId).then((stored) => {
      if (stored) this.deps.scheduler.endpointStates.note(stored);
      return stored ?? freshEndpointState(subscriptionId);
    });
    this.endpoints.set(subscriptionId, { state, readAt: now });
    return state;
  }

  /**
   * Records an endpoint's new state (already stored) for the rest of the batch. It is as fresh
   * as the read it was made from: what other processes stored since is still unknown.
   */
  setEndpoint(state: EndpointState): void {
    this.deps.scheduler.endpointStates.note(state);
    const readAt = this.endpoints.get(state.subscriptionId)?.readAt ?? this.deps.clock.now();
    this.endpoints.set(state.subscriptionId, { state: Promise.resolve(state), readAt });
  }

  /**
   * The deliveries of `subject` that the waiting ledger lists at the endpoint (undefined without a
   * ledger: nothing to read): read once per batch, and only where the endpoint's count says
   * something waits.
   */
  sharedWaiting(endpoint: string, subject: string): Promise<WaitingMark[]> | undefined {
    return this.waiting?.read(endpoint, subject);
  }

  /**
   * When the deliveries of `subject` to the endpoint that wait ahead of `deliveryId` are due, or
   * undefined when none does. Without a waiting ledger, by this process's memory; with one, by
   * what every process had noted there when the batch read it, updated with what the batch
   * noted since (the process's own memory may be stale: another process may have delivered
   * what it remembers as waiting).
   */
  private dueAhead(
    endpoint: string,
    subject: string,
    deliveryId: string,
  ): Promise<number | undefined> {
    if (this.waiting) return this.waiting.dueAhead(endpoint, subject, deliveryId);
    return Promise.resolve(this.deps.scheduler.dueAhead(endpoint, subject, deliveryId));
  }

  /**
   * When a delivery of `subject` may go after the deliveries of its subject that wait ahead of
   * it at the endpoint (see afterPredecessors), or undefined when none does. One already due
   * is looked at again after a second, or with a waiting ledger after 5 s (its attempt may be
   * in flight in another container), and less often the later it is (see overdueWaitMs). Once
   * they are overdue by more than 15 minutes, the store is asked about those (see
   * OverdueWaitingChecks.checkOverdue); nothing is read while none is that late (none waits: no
   * read at all). For live work (`live`), the backfill's deliveries it waits behind are sent
   * ahead (see sendBulkAhead).
   */
  async notBefore(
    endpoint: string,
    subject: string,
    deliveryId: string,
    live = false,
  ): Promise<number | undefined> {
    let ahead = await this.dueAhead(endpoint, subject, deliveryId);
    if (ahead === undefined) return undefined;
    if (ahead + FORGOTTEN_AFTER_MS < this.deps.clock.now()) {
      await this.overdue.checkOverdue(endpoint, subject, deliveryId);
      ahead = await this.dueAhead(endpoint, subject, deliveryId);
      if (ahead === undefined) return undefined;
    }
    const now = this.deps.clock.now();
    const overdueWait = this.waiting
      ? overdueWaitMs(now - ahead, LEDGER_OVERDUE_PREDECESSOR_WAIT_MS)
      : overdueWaitMs(now - ahead);
    const after = afterPredecessors(ahead, now, overdueWait);
    // Sent ahead: the delivery looks again as soon as a predecessor's own wait allows.
    return live && (await this.sendBulkAhead(endpoint, subject, deliveryId))
      ? Math.min(after, now + OVERDUE_PREDECESSOR_WAIT_MS)
      : after;
  }

  /**
   * Sends the backfill's deliveries of `subject` that `deliveryId` waits behind a message each,
   * due now, that takes them ahead of the bulk lane's backlog as live work (see
   * DeliveryMessage.ahead): a backfill's `created` deferred at a paused or slow endpoint waited
   * there behind thousands of others, and the live change behind it with it. Each once: by the
   * waiting ledger where there is one (BatchWaiting.takeBulkAhead, whichever process asks),
   * else by this process's memory, the order's whole record in the local run (see
   * WaitingDeliveries.takeBulkAhead). Their own messages stay and find them handled. Returns
   * whether it sent any.
   */
  private async sendBulkAhead(
    endpoint: string,
    subject: string,
    deliveryId: string,
  ): Promise<boolean> {
    const ahead = this.waiting
      ? await this.waiting.takeBulkAhead(endpoint, subject, deliveryId)
      : this.deps.scheduler.takeBulkAhead(endpoint, subject, deliveryId);
    const now = this.deps.clock.now();
    for (const id of ahead) {
      const message = deliveryMessage({ id, subscriptionId: endpoint }, subject, 'live');
      // No record rests on it: if it cannot be sent, the delivery's own message still comes.
      this.enqueue({ ...message, ahead: true }, now, []);
    }
    return ahead.length > 0;
  }

  /**
   * Notes for the waiting ledger (when there is one) that `delivery` waits for its next attempt
   * (pending) or, if it `waited` before, waits no longer; written by {@link flush}.
   */
  shareWaiting(delivery: Delivery, subject: string | undefined, waited: boolean): void {
    if (subject !== undefined) this.waiting?.note(delivery, subject, waited);
  }

  /**
   * Queues a message for {@link flush}, to be visible at `dueAt` (epoch ms): its delay is
   * counted when it is sent, and a batch still running at `dueAt` sends it then (see
   * {@link early}), so the time the batch takes does not make it late. If it cannot be sent,
   * `recordIds` fail.
   */
  enqueue(
    message: DeliveryMessage,
    dueAt: number,
    recordIds: readonly string[],
    waitsInLine = false,
  ): void {
    this.outbox.push({ message, dueAt, recordIds, waitsInLine });
    this.early.noteDue(dueAt);
  }

  /**
   * What a batch still running sends once a retry or deferral of it comes due: its staged
   * events and deliveries, its waiting ledger notes and its queue messages, in the order
   * {@link flush} follows. Failures fail records, as at the end.
   */
  private async sendEarly(): Promise<void> {
    try {
      await writeInlineDeliveries(this);
      await this.waiting?.write();
      await this.sendOutbox();
    } catch (error) {
      this.deps.logger.error('sending due messages early failed', { error: String(error) });
    }
  }

  /** Marks records failed and logs why. */
  fail(recordIds: readonly string[], message: string, error: unknown): void {
    this.deps.logger.error(message, { messageIds: recordIds, error: String(error) });
    for (const id of recordIds) this.failures.add(id);
  }

  /**
   * Leaves the records' messages in the queue, untouched, for the next run (the process stops):
   * reported like failures, so they are not deleted, but nothing is wrong and nothing is logged.
   */
  leave(recordIds: readonly string[]): void {
    for (const id of recordIds) this.failures.add(id);
  }

  /** Sends the queued messages; records whose message was not sent fail. */
  private async sendOutbox(): Promise<void> {
    const pending = this.outbox.splice(0);
    if (pending.length === 0) return;
    const now = this.deps.clock.now();
    const failed = await this.deps.queue.sendBatch(
      pending.map(({ message, dueAt, waitsInLine }) => ({
        message,
        delaySeconds: delaySecondsUntil(dueAt, now),
        dueAt,
        waitsInLine,
      })),
    );
    for (const index of failed) {
      const item = pending[index];
      if (item) this.fail(item.recordIds, 'enqueue failed', item.message.deliveryId);
    }
  }

  /**
   * Sends the queued messages in as few requests as the queue allows; records whose message
   * was not sent fail, so SQS hands them back and the work that needed the message is redone.
   * Then adds the batch's counts (events fanned out, deliveries made, delivered, dead-lettered)
   * to the delivery counter (one increment per stream and detection instant). Counting is best effort: a failed increment is logged and fails no record, since
   * retrying the batch would not deliver those webhooks again (progress then reads a little low).
   * Before the messages, the batch's changes to the waiting ledger are written (BatchWaiting.write),
   * and first the waiting deliveries that the process's memory found long overdue are looked up
   * (see OverdueWaitingChecks.checkLongOverdue; nothing is read while none is).
   */
  async flush(): Promise<void> {
    await this.early.finish();
    await this.overdue.checkLongOverdue();
    await this.waiting?.write();
    await this.sendOutbox();
    const counted = this.counts.take();
    if (counted.size === 0 || !this.deps.deliveryCounter) return;
    try {
      await this.deps.deliveryCounter.add(counted);
    } catch (error) {
      this.deps.logger.warn('counting delivered webhooks failed', { error: String(error) });
    }
  }
}
