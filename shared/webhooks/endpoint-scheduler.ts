import type { Clock } from '../clock.ts';
import type { DispatchLane } from '../publish/publisher.ts';
import { type EndpointLane, newEndpointLane, type Started, slotDemand } from './endpoint-lane.ts';
import { DEADLINE_DEFER_MS, pumpLane } from './endpoint-lane-pump.ts';
import { ENDPOINT_CONCURRENCY_DEFAULT, type EndpointSettings } from './endpoint-settings.ts';
import type { EndpointSlots } from './endpoint-slots.ts';
import { HeldSlots } from './held-slots.ts';
import { KnownEndpointStates } from './known-endpoint-states.ts';
import { nextMeanMs } from './line-wait.ts';
import { type LongOverdue, WaitingDeliveries } from './waiting-deliveries.ts';

/** How one request to an endpoint went, for its adaptive concurrency. */
export type EndpointSignal = 'success' | 'overloaded' | 'failure';

/**
 * Concurrency per endpoint, shared by every batch and worker of a process: at most `limit`
 * deliveries in flight to one endpoint, never two of one subject (a subject's deliveries go
 * one after another, in the order they were asked for), an optional rate in deliveries per
 * second, and adaptive limits: a 429, 503 or timeout halves the endpoint's limit, and a
 * limit's worth of successes in a row adds one, up to its maximum (AIMD, as TCP does).
 * Also remembers an endpoint's Retry-After pause and which deliveries of each subject wait for
 * a later attempt (a subject's later event waits behind them), so a
 * batch that read the endpoint earlier still sends nothing before the pause ends. Work of the
 * live lane starts before bulk work waiting at the same endpoint (the lanes keep one subject's
 * events in one lane while its bulk events wait; see DispatchLanes). Given {@link EndpointSlots},
 * the limit and the rate hold across every process that shares them: this one starts no more
 * than its share (see HeldSlots). The dispatcher names an endpoint by its URL (endpointOfUrl),
 * so the subscriptions that post to one URL share all of this, and a subject by
 * its subscription too (each subscription's deliveries of a subject keep their own order).
 * When waiting work starts, or starts to defer itself, is decided by pumpLane.
 */
export class EndpointScheduler {
  private readonly lanes = new Map<string, EndpointLane>();
  private readonly waiting: WaitingDeliveries;
  /** Pauses of endpoints that have no lane yet (see {@link pause}); expired ones are dropped. */
  private readonly lanelessPauses = new Map<string, number>();
  /** When this process disabled each subscription it disabled (one entry per such endpoint). */
  private readonly disabledSince = new Map<string, number>();
  /** The newest state of each subscription's endpoint this process read or stored (health). */
  readonly endpointStates = new KnownEndpointStates();
  /** When the process stopped sending (see {@link stopSending}), if it did. */
  private stoppedAt: number | undefined;

  /**
   * @param slots Where processes that deliver to the same endpoints share its slots (in AWS,
   *   the dispatcher's containers, through the table); without it the limits hold within this
   *   process only (the local runtime is one process).
   */
  constructor(
    private readonly clock: Clock,
    private readonly slots?: EndpointSlots,
  ) {
    this.waiting = new WaitingDeliveries(clock);
  }

  /**
   * Runs `work` when the endpoint has room and `subject` has nothing in flight there. Work for
   * one subject starts in the order it was asked for; live work before bulk work. Work expected
   * to wait too long in the endpoint's line is started with `deferUntil`: it must send nothing
   * and defer itself until then (see planLineDeferrals); it takes none of the limit. So is work
   * still waiting at its `deadline` (a Lambda invocation's, less what the work started before
   * needs to finish): its subject's earlier work first, each once that has finished.
   */
  async run<T>(
    endpoint: string,
    subject: string,
    settings: EndpointSettings,
    work: (deferUntil?: number) => Promise<T>,
    priority: DispatchLane = 'live',
    deadline?: number,
  ): Promise<T> {
    const lane = this.lane(endpoint, settings);
    const started = await new Promise<Started>((start) => {
      const since = this.clock.now();
      if (deadline === undefined) lane.waiting.push({ subject, lane: priority, since, start });
      else {
        // Counted while it waits: a line with no deadline in it (the local run) is not scanned.
        lane.waitingWithDeadline++;
        const startOnce = (how: Started) => {
          lane.waitingWithDeadline--;
          start(how);
        };
        lane.waiting.push({ subject, lane: priority, since, start: startOnce, deadline });
      }
      if (priority === 'live') lane.liveWaiting++;
      pumpLane(this.clock, lane);
    });
    const sends = started.deferUntil === undefined;
    // Work started while the endpoint is held (a Retry-After pause) defers itself and sends
    // nothing: its moment says nothing of how long the endpoint takes to answer.
    const held = Math.max(lane.pausedUntil, lane.deferUntil) > started.at;
    try {
      return await work(started.deferUntil);
    } finally {
      if (sends) {
        lane.inFlightSince.splice(lane.inFlightSince.indexOf(started.at), 1);
        lane.inFlight--;
        if (!held) lane.meanMs = nextMeanMs(lane.meanMs, this.clock.now() - started.at);
      }
      lane.busySubjects.delete(subject);
      pumpLane(this.clock, lane);
      if (lane.inFlight === 0 && lane.waiting.length === 0) lane.slots?.idle();
    }
  }

  /**
   * The process stops (`change-bridge start` asked to stop): from now on no work sends a request.
   * Every work waiting at an endpoint, and any asked for later, starts at once to defer itself
   * (DEADLINE_DEFER_MS), as at its batch's deadline (a delivery message's work leaves its
   * message instead: see runTask, in dispatch-tasks.ts): its subject's first waiting work at once,
   * the next once that one is done, so a subject's deferrals keep its order. Work between its
   * start and its request sees {@link holdUntil}. What is in flight is left to finish (or to the
   * sender's own stop). The batches then end without waiting for their lines or their deadlines.
   * Idempotent.
   */
  stopSending(): void {
    if (this.stoppedAt !== undefined) return;
    this.stoppedAt = this.clock.now();
    for (const lane of this.lanes.values()) {
      lane.stoppedAt = this.stoppedAt;
      pumpLane(this.clock, lane);
    }
  }

  /** Whether the process stopped sending ({@link stopSending}). */
  get stopping(): boolean {
    return this.stoppedAt !== undefined;
  }

  /**
   * Gives back the slots of every endpoint that has no work now (see EndpointSlots), so other
   * processes may use them at once: a Lambda invocation calls it before it ends (a frozen
   * container would otherwise hold them until they lapse). Throws when the store failed.
   */
  async releaseIdleSlots(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((lane) => lane.slots?.releaseIfIdle()));
  }

  /**
   * Feeds one request's result into the endpoint's adaptive limit. `startedAt` is when that
   * request was sent: an overload answered to a request already in flight when the limit last
   * halved is the same overload (16 requests timing out together halve 16 to 8, not to 1), as
   * TCP halves its window once per loss, not once per lost packet.
   */
  record(endpoint: string, signal: EndpointSignal, startedAt?: number): void {
    const lane = this.lanes.get(endpoint);
    if (!lane) return;
    if (signal === 'overloaded') {
      if (startedAt !== undefined && startedAt < lane.lastHalvedAt) return;
      lane.limit = Math.max(1, Math.floor(lane.limit / 2));
      lane.successes = 0;
      lane.lastHalvedAt = this.clock.now();
    } else if (signal === 'success') {
      lane.successes++;
      if (lane.successes >= lane.limit && lane.limit < lane.max) {
        lane.limit++;
        lane.successes = 0;
      }
    }
  }

  /**
   * Notes that this process disabled (or removed) the endpoint's subscription (a 410, failing
   * too long, the admin API): batches that read the subscription before then read it again
   * before their next request.
   */
  noteDisabled(endpoint: string): void {
    this.disabledSince.set(endpoint, this.clock.now());
  }

  /** When this process last disabled the endpoint's subscription, if it did (epoch ms). */
  disabledAt(endpoint: string): number | undefined {
    return this.disabledSince.get(endpoint);
  }

  /** The endpoint's current concurrency limit (for metrics and tests). */
  limitOf(endpoint: string): number | undefined {
    return this.lanes.get(endpoint)?.limit;
  }

  /**
   * Holds every new request to the endpoint until `untilMs` (a Retry-After), whether or not this
   * process has sent it anything yet (another subscription to its URL was answered).
   */
  pause(endpoint: string, untilMs: number): void {
    const lane = this.lanes.get(endpoint);
    if (lane) {
      lane.pausedUntil = Math.max(lane.pausedUntil, untilMs);
      return;
    }
    const now = this.clock.now();
    for (const [other, until] of this.lanelessPauses) {
      if (until <= now) this.lanelessPauses.delete(other);
    }
    this.lanelessPauses.set(endpoint, Math.max(this.lanelessPauses.get(endpoint) ?? 0, untilMs));
  }

  /** Until when the endpoint is paused in this process (a `Retry-After`), if it is. */
  pausedUntil(endpoint: string): number | undefined {
    const until = this.lanes.get(endpoint)?.pausedUntil ?? this.lanelessPauses.get(endpoint) ?? 0;
    return until > this.clock.now() ? until : undefined;
  }

  /**
   * Until when this process sends nothing to the endpoint, if it does not now: its pause, or
   * the deferral of work that waited too long for slots (SLOT_WAIT_LIMIT_MS, in
   * endpoint-lane-pump.ts; this process's own, never stored as the endpoint's pause), or, once it
   * stopped sending ({@link stopSending}), a moment (DEADLINE_DEFER_MS): the next run takes the
   * work up then.
   */
  holdUntil(endpoint: string): number | undefined {
    const now = this.clock.now();
    const lane = this.lanes.get(endpoint);
    const until = Math.max(
      lane?.pausedUntil ?? this.lanelessPauses.get(endpoint) ?? 0,
      lane?.deferUntil ?? 0,
      this.stoppedAt === undefined ? 0 : now + DEADLINE_DEFER_MS,
    );
    return until > now ? until : undefined;
  }

  /**
   * Notes that a delivery of `subject` to the endpoint waits for its next attempt until `dueAt`,
   * with its own lane (see WaitingDeliveries.note).
   */
  noteWaiting(
    endpoint: string,
    subject: string,
    deliveryId: string,
    dueAt: number,
    lane?: DispatchLane,
  ): void {
    this.waiting.note(endpoint, subject, deliveryId, dueAt, lane);
  }

  /**
   * Whether a later delivery of `subject` to the endpoint waits behind `deliveryId` (see
   * WaitingDeliveries.waitsBehind).
   */
  waitsBehind(endpoint: string, subject: string, deliveryId: string): boolean {
    return this.waiting.waitsBehind(endpoint, subject, deliveryId);
  }

  /** Whether any delivery is noted as waiting now, over every endpoint and subject. */
  get anyWaiting(): boolean {
    return this.waiting.any;
  }

  /** Deliveries noted as waiting now, over every endpoint and subject. */
  get waitingDeliveries(): number {
    return this.waiting.size;
  }

  /** Notes that a delivery of `subject` waits no longer (delivered, dead-lettered, gone). */
  noteSettled(endpoint: string, subject: string, deliveryId: string): void {
    this.waiting.settle(endpoint, subject, deliveryId);
  }

  /** The subject's first waiting delivery at the endpoint, if any (see WaitingDeliveries.firstOf). */
  firstWaiting(
    endpoint: string,
    subject: string,
  ): { deliveryId: string; dueAt: number } | undefined {
    return this.waiting.firstOf(endpoint, subject);
  }

  /**
   * The backfill's deliveries of `subject` that `deliveryId` waits behind, each once (see
   * WaitingDeliveries.takeBulkAhead).
   */
  takeBulkAhead(endpoint: string, subject: string, deliveryId: string): string[] {
    return this.waiting.takeBulkAhead(endpoint, subject, deliveryId);
  }

  /** When the deliveries of `subject` noted before `deliveryId` are due (see WaitingDeliveries.dueAhead). */
  dueAhead(endpoint: string, subject: string, deliveryId: string): number | undefined {
    return this.waiting.dueAhead(endpoint, subject, deliveryId);
  }

  /**
   * The waiting deliveries of every subject that the memory's sweep found overdue by more than
   * 15 minutes since the last call (see WaitingDeliveries.takeLongOverdue).
   */
  takeLongOverdue(): LongOverdue[] {
    return this.waiting.takeLongOverdue();
  }

  /** Those of them overdue by more than 15 minutes (see WaitingDeliveries.overdueAhead). */
  overdueAhead(endpoint: string, subject: string, deliveryId: string): string[] {
    return this.waiting.overdueAhead(endpoint, subject, deliveryId);
  }

  private lane(endpoint: string, settings: EndpointSettings): EndpointLane {
    const max = settings.maxConcurrency ?? ENDPOINT_CONCURRENCY_DEFAULT;
    const ratePerSecond = settings.ratePerSecond || undefined;
    let lane = this.lanes.get(endpoint);
    if (!lane) {
      const created = newEndpointLane(max, ratePerSecond);
      created.pausedUntil = this.lanelessPauses.get(endpoint) ?? 0;
      created.stoppedAt = this.stoppedAt;
      this.lanelessPauses.delete(endpoint);
      if (this.slots)
        created.slots = new HeldSlots(
          this.slots,
          endpoint,
          this.clock,
          () => slotDemand(created),
          () => pumpLane(this.clock, created),
        );
      this.lanes.set(endpoint, created);
      lane = created;
    } else {
      // The subscription was changed: new bounds apply from now on.
      lane.max = max;
      lane.limit = Math.min(lane.limit, max);
      lane.ratePerSecond = ratePerSecond;
    }
    return lane;
  }
}
