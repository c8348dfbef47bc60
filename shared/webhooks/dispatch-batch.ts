import type { DispatchLane } from '../publish/publisher.ts';
import { BatchWaiting } from './batch-waiting.ts';
import { type DeliveryOrigin, DeliveryTally } from './delivery-counter.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import {
  DEADLINE_DEFER_MS,
  type EndpointSettings,
  endpointOfUrl,
  sharedEndpointSettings,
} from './endpoint-scheduler.ts';
import { type DeliveryMessage, deliveryMessage } from './messages.ts';
import { delaySecondsUntil } from './queue.ts';
import {
  type Attempt,
  type Delivery,
  type EndpointState,
  freshEndpointState,
  type StoredEvent,
} from './store.ts';
import type { Subscription } from './subscription.ts';
import {
  afterPredecessors,
  FORGOTTEN_AFTER_MS,
  type LongOverdue,
  overdueWaitMs,
} from './waiting-deliveries.ts';
import { LEDGER_OVERDUE_PREDECESSOR_WAIT_MS, type WaitingMark } from './waiting-ledger.ts';

/** A new delivery waiting for the batch's shared write. */
export interface StagedDelivery {
  delivery: Delivery;
  attempts: Attempt[] | undefined;
  /** Settles once it is listed under its subscription (written only after). */
  listed: Promise<void> | undefined;
  deferred: boolean;
  /** The lane whose line it was deferred from, for its turn at a slow endpoint (its message says so). */
  inLine: DispatchLane | undefined;
  /** The subject of the delivery's event (see subjectKey): its retry message carries it. */
  subject: string;
  recordIds: readonly string[];
  /** The stream and detection instant of the delivery's event, counted once it is written. */
  origin: DeliveryOrigin | undefined;
}

/**
 * How long a batch goes by its read of an endpoint's state. In AWS another container may be
 * answered a `429` with `Retry-After` meanwhile and store the pause; a batch that runs longer
 * (a slow endpoint, a large batch) reads the state again before its next request to the
 * endpoint, so that pause holds here within about this long, at one read a second at most per
 * endpoint and batch (batches shorter than this read once, as before).
 */
export const ENDPOINT_STATE_FRESH_MS = 1_000;

/** Waiting deliveries long overdue read from the store at once (see DispatchBatch.checkLongOverdue). */
const LONG_OVERDUE_READS_AT_ONCE = 100;

/**
 * How long a batch goes by its read of a subscription. The admin API may disable it meanwhile
 * (in AWS from another Lambda, which this process is not told of): a batch that runs longer
 * reads the subscription again before its next request there, so no request goes to it more
 * than about this long after it was disabled, at one read per subscription and this long at
 * most (batches shorter than this read the list once, as before). Within one process (the
 * local run) the admin API tells the batches at once (EndpointScheduler.noteDisabled).
 */
export const SUBSCRIPTION_FRESH_MS = 5_000;

/**
 * What the work on one SQS batch shares, so each read and each queue request serves many
 * deliveries: the subscriptions (one Query per batch), each endpoint's state (read when the
 * batch first needs it, then kept current in memory with the batch's own changes, and read
 * again once {@link ENDPOINT_STATE_FRESH_MS} old: another process may have paused the endpoint
 * meanwhile), and the queue messages, sent together by {@link DispatchBatch.flush}. Records
 * whose work failed are collected for SQS to retry.
 */
export class DispatchBatch {
  private subscriptionList?: Promise<Map<string, Subscription>>;
  /** The list once read (see {@link sharedEndpoint}). */
  private subscriptionsListed: Map<string, Subscription> | undefined;
  /** Each URL's endpoint and the settings its subscriptions share, as the batch's list has them. */
  private readonly sharedEndpoints = new Map<
    string,
    { endpoint: string; settings: EndpointSettings }
  >();
  /** When the batch read its list of subscriptions (epoch ms). */
  private subscriptionsReadAt: number | undefined;
  /**
   * Subscriptions read again (or disabled) by this batch since its list was read: when, and the
   * process's note of their disabling (EndpointScheduler.disabledAt) as it was then.
   */
  private readonly reread = new Map<string, { at: number; disabledAt: number | undefined }>();
  /** Reads of single subscriptions under way (see {@link subscription}). */
  private readonly readsInFlight = new Map<
    string,
    { read: Promise<Subscription | undefined>; disabledAt: number | undefined }
  >();
  private readonly endpoints = new Map<string, { state: Promise<EndpointState>; readAt: number }>();
  private readonly outbox: {
    message: DeliveryMessage;
    dueAt: number;
    recordIds: readonly string[];
  }[] = [];
  /** Message ids of records to report as `batchItemFailures`. */
  readonly failures = new Set<string>();
  /**
   * Events of the batch not stored before, by id: stored at the end of the batch with the
   * outcome of their first attempts (see `writeInlineDeliveries`), once `listed` settles; their
   * records fail if not.
   */
  readonly freshEvents = new Map<
    string,
    {
      event: StoredEvent;
      recordIds: readonly string[];
      listed: Promise<void>;
      /** Its stream and detection instant, counted once it is written (see DeliveryCounter). */
      origin: DeliveryOrigin | undefined;
    }
  >();
  /** New deliveries after their first attempt, written together at the end of the batch. */
  readonly stagedDeliveries: StagedDelivery[] = [];
  /**
   * Events fanned out and deliveries made, delivered and dead-lettered, per stream and detection
   * instant; added to the counter by {@link flush}.
   */
  readonly counts = new DeliveryTally();
  /** The batch's view of the waiting ledger, when the process has one. */
  private readonly waiting: BatchWaiting | undefined;

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

  /** Every subscription by id, read once per batch (eventually consistent: fine for fan-out). */
  subscriptions(): Promise<Map<string, Subscription>> {
    if (!this.subscriptionList) {
      this.subscriptionsReadAt = this.deps.clock.now();
      this.subscriptionList = this.deps.store.listSubscriptions().then((all) => {
        this.subscriptionsListed = new Map(all.map((s) => [s.id, s]));
        return this.subscriptionsListed;
      });
    }
    return this.subscriptionList;
  }

  /**
   * The endpoint `subscription` posts to (its URL's, see endpointOfUrl) and the settings that
   * hold there: the smallest `maxConcurrency` and `rateLimitPerSecond` set by the enabled
   * subscriptions to that URL (see sharedEndpointSettings). Worked out once per URL and batch,
   * from the batch's list (read before: see {@link subscription}).
   */
  sharedEndpoint(subscription: Subscription): { endpoint: string; settings: EndpointSettings } {
    const known = this.sharedEndpoints.get(subscription.url);
    if (known) return known;
    const sharing = [...(this.subscriptionsListed?.values() ?? [])].filter(
      (other) => other.enabled && other.url === subscription.url && other.id !== subscription.id,
    );
    if (subscription.enabled) sharing.push(subscription);
    const shared = {
      endpoint: endpointOfUrl(subscription.url),
      settings: sharedEndpointSettings(sharing),
    };
    this.sharedEndpoints.set(subscription.url, shared);
    return shared;
  }

  /**
   * One subscription: from the batch's list, or read on its own when the list lacks it (a
   * list read a moment before the subscription was made), so a missing one is really gone.
   * Read again when this process has disabled it since the batch read it (a 410, or the admin
   * API of the local run), and once the batch's copy is {@link SUBSCRIPTION_FRESH_MS} old (the
   * admin API of another process): no request goes to a disabled subscription after this
   * process disabled it, from whichever batch, nor more than about that long after another did.
   */
  async subscription(id: string): Promise<Subscription | undefined> {
    const list = await this.subscriptions();
    const listed = list.get(id);
    if (listed && !(listed.enabled && this.readAgain(id))) return listed;
    const disabledAt = this.deps.scheduler.disabledAt(id);
    // Deliveries that find the copy stale at once share one read (unless disabled since it began).
    const inFlight = this.readsInFlight.get(id);
    if (inFlight && inFlight.disabledAt === disabledAt) return inFlight.read;
    const at = this.deps.clock.now();
    const read = this.deps.store.getSubscription(id).then((subscription) => {
      // Noted once read: a read that failed (its record fails) leaves the next delivery to read it.
      this.reread.set(id, { at, disabledAt });
      if (subscription) list.set(id, subscription);
      else list.delete(id);
      return subscription;
    });
    const entry = { read, disabledAt };
    this.readsInFlight.set(id, entry);
    try {
      return await read;
    } finally {
      if (this.readsInFlight.get(id) === entry) this.readsInFlight.delete(id);
    }
  }

  /**
   * Whether the batch's copy of a subscription must be read again: this process disabled it
   * after the copy was read, or the copy is {@link SUBSCRIPTION_FRESH_MS} old.
   */
  private readAgain(id: string): boolean {
    const disabledAt = this.deps.scheduler.disabledAt(id);
    const reread = this.reread.get(id);
    const readAt = reread?.at ?? this.subscriptionsReadAt;
    if (readAt === undefined) return false;
    if (this.deps.clock.now() - readAt >= SUBSCRIPTION_FRESH_MS) return true;
    if (disabledAt === undefined) return false;
    return reread ? disabledAt !== reread.disabledAt : disabledAt >= readAt;
  }

  /**
   * Notes that a subscription was disabled during this batch; its later deliveries see it, and
   * so do those of the process's other batches (see {@link subscription}).
   */
  async markDisabled(id: string): Promise<void> {
    this.deps.scheduler.noteDisabled(id);
    this.reread.set(id, {
      at: this.deps.clock.now(),
      disabledAt: this.deps.scheduler.disabledAt(id),
    });
    const listed = (await this.subscriptions()).get(id);
    if (listed) (await this.subscriptions()).set(id, { ...listed, enabled: false });
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
   * The deliveries of `subject` that the waiting ledger lists at the endpoint (none without a
   * ledger): read once per batch, and only where the endpoint's count says something waits.
   */
  sharedWaiting(endpoint: string, subject: string): Promise<WaitingMark[]> {
    return this.waiting?.read(endpoint, subject) ?? Promise.resolve([]);
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
   * {@link checkOverdue}); nothing is read while none is that late (none waits: no read at all).
   */
  async notBefore(
    endpoint: string,
    subject: string,
    deliveryId: string,
  ): Promise<number | undefined> {
    let ahead = await this.dueAhead(endpoint, subject, deliveryId);
    if (ahead === undefined) return undefined;
    if (ahead + FORGOTTEN_AFTER_MS < this.deps.clock.now()) {
      await this.checkOverdue(endpoint, subject, deliveryId);
      ahead = await this.dueAhead(endpoint, subject, deliveryId);
      if (ahead === undefined) return undefined;
    }
    const now = this.deps.clock.now();
    const overdueWait = this.waiting
      ? overdueWaitMs(now - ahead, LEDGER_OVERDUE_PREDECESSOR_WAIT_MS)
      : overdueWaitMs(now - ahead);
    return afterPredecessors(ahead, now, overdueWait);
  }

  /**
   * Asks the store about the deliveries of `subject` waiting ahead of `deliveryId` at the
   * endpoint that are overdue by more than 15 minutes: lateness alone does not settle them (a
   * backlogged queue may hand a retry over any time late). See {@link resendIfPending}.
   */
  private async checkOverdue(endpoint: string, subject: string, deliveryId: string): Promise<void> {
    const overdue = this.waiting
      ? await this.waiting.lostAhead(endpoint, subject, deliveryId)
      : this.deps.scheduler.overdueAhead(endpoint, subject, deliveryId);
    const stored = await Promise.all(overdue.map((id) => this.deps.store.getDelivery(id)));
    overdue.forEach((id, index) => {
      this.resendIfPending({ endpoint, subject, deliveryId: id }, stored[index]);
    });
  }

  /**
   * Asks the store about the waiting deliveries that this process's memory found overdue by
   * more than 15 minutes, of subjects no later event asked about (see
   * WaitingDeliveries.takeLongOverdue), as {@link checkOverdue} does: without a waiting ledger
   * nothing else would ever send one whose message was lost. With a ledger the memory orders
   * nothing (the ledger keeps such a delivery's mark: see checkOverdue), and a container's
   * memory holds the retries other containers settled: they are forgotten, unread. A read that
   * fails leaves them noted, for a later sweep.
   */
  private async checkLongOverdue(): Promise<void> {
    const overdue = this.deps.scheduler.takeLongOverdue();
    if (this.waiting) {
      for (const { endpoint, subject, deliveryId } of overdue)
        this.deps.scheduler.noteSettled(endpoint, subject, deliveryId);
      return;
    }
    for (let first = 0; first < overdue.length; first += LONG_OVERDUE_READS_AT_ONCE) {
      const some = overdue.slice(first, first + LONG_OVERDUE_READS_AT_ONCE);
      let stored: (Delivery | undefined)[];
      try {
        stored = await Promise.all(
          some.map(({ deliveryId }) => this.deps.store.getDelivery(deliveryId)),
        );
      } catch (error) {
        this.deps.logger.warn('could not ask the store about waiting deliveries long overdue', {
          deliveries: some.map(({ deliveryId }) => deliveryId),
          error: String(error),
        });
        return;
      }
      some.forEach((waiting, index) => {
        this.resendIfPending(waiting, stored[index]);
      });
    }
  }

  /**
   * Acts on what the store says of a waiting delivery long overdue (`delivery`, undefined when
   * gone): one still pending is waited for, and its message enqueued again, due now, in case it
   * was lost (a duplicate of a message merely late is skipped once the delivery is settled); its
   * due time is noted as now, so it is asked about again only after another 15 minutes. One
   * delivered, dead-lettered or gone is forgotten.
   */
  private resendIfPending(waiting: LongOverdue, delivery: Delivery | undefined): void {
    const { endpoint, subject, deliveryId } = waiting;
    if (delivery?.status !== 'pending') {
      this.deps.scheduler.noteSettled(endpoint, subject, deliveryId);
      this.waiting?.forget(endpoint, subject, deliveryId);
      return;
    }
    const now = this.deps.clock.now();
    this.deps.logger.warn('re-enqueued a waiting delivery long overdue', { deliveryId });
    this.deps.scheduler.noteWaiting(endpoint, subject, deliveryId, now);
    this.waiting?.note({ ...delivery, nextAttemptAt: now }, subject, true);
    this.enqueue(deliveryMessage(delivery, subject), now, []);
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
   * counted when it is sent, so the time the batch takes until then does not make it late. If
   * it cannot be sent, `recordIds` fail.
   */
  enqueue(message: DeliveryMessage, dueAt: number, recordIds: readonly string[]): void {
    this.outbox.push({ message, dueAt, recordIds });
  }

  /** Marks records failed and logs why. */
  fail(recordIds: readonly string[], message: string, error: unknown): void {
    this.deps.logger.error(message, { messageIds: recordIds, error: String(error) });
    for (const id of recordIds) this.failures.add(id);
  }

  /**
   * Sends the queued messages in as few requests as the queue allows; records whose message
   * was not sent fail, so SQS hands them back and the work that needed the message is redone.
   * Then adds the batch's counts (events fanned out, deliveries made, delivered, dead-lettered)
   * to the delivery counter (one increment per stream and detection instant). Counting is best effort: a failed increment is logged and fails no record, since
   * retrying the batch would not deliver those webhooks again (progress then reads a little low).
   * Before the messages, the batch's changes to the waiting ledger are written (BatchWaiting.write),
   * and first the waiting deliveries that the process's memory found long overdue are looked up
   * (see checkLongOverdue; nothing is read while none is).
   */
  async flush(): Promise<void> {
    await this.checkLongOverdue();
    await this.waiting?.write();
    const pending = this.outbox.splice(0);
    if (pending.length > 0) {
      const now = this.deps.clock.now();
      const failed = await this.deps.queue.sendBatch(
        pending.map(({ message, dueAt }) => ({
          message,
          delaySeconds: delaySecondsUntil(dueAt, now),
        })),
      );
      for (const index of failed) {
        const item = pending[index];
        if (item) this.fail(item.recordIds, 'enqueue failed', item.message.deliveryId);
      }
    }
    const counted = this.counts.take();
    if (counted.size === 0 || !this.deps.deliveryCounter) return;
    try {
      await this.deps.deliveryCounter.add(counted);
    } catch (error) {
      this.deps.logger.warn('counting delivered webhooks failed', { error: String(error) });
    }
  }
}
