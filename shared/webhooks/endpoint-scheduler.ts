import { createHash } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { DispatchLane } from '../publish/publisher.ts';
import {
  type EndpointLane,
  minGapMs,
  newEndpointLane,
  nextSlot,
  type Slot,
  type Started,
  slotDemand,
} from './endpoint-lane.ts';
import type { EndpointSlots } from './endpoint-slots.ts';
import { HeldSlots } from './held-slots.ts';
import { KnownEndpointStates } from './known-endpoint-states.ts';
import {
  deferralHorizonMs,
  nextMeanMs,
  planLineDeferrals,
  SLOW_FOR_MS,
  slowLineStepMs,
} from './line-wait.ts';
import { type LongOverdue, WaitingDeliveries } from './waiting-deliveries.ts';

/** Deliveries in flight to one endpoint unless its subscription says otherwise. */
export const ENDPOINT_CONCURRENCY_DEFAULT = 16;

/** How many URLs' endpoint keys {@link endpointOfUrl} remembers before it starts over. */
const URL_KEYS_KEPT = 10_000;
const urlKeys = new Map<string, string>();

/**
 * The endpoint (the scheduler's key, and in AWS the slots item's) of the receiver at `url`: every
 * subscription that posts to one URL shares its concurrency limit, the limit's adaptation, its
 * rate and its Retry-After pause there (README: the receiver at a URL is the endpoint). A hash of
 * the URL, not the URL: its path or query may hold the receiver's own secret, and the key is
 * stored and may be named in errors. Remembered, so a delivery costs a map lookup.
 * @example endpointOfUrl('https://a.example/hook') === endpointOfUrl('https://a.example/hook')
 */
export function endpointOfUrl(url: string): string {
  let key = urlKeys.get(url);
  if (key === undefined) {
    key = `url:${createHash('sha256').update(url).digest('base64url')}`;
    if (urlKeys.size >= URL_KEYS_KEPT) urlKeys.clear();
    urlKeys.set(url, key);
  }
  return key;
}

/** What an endpoint's subscriptions set for it, as {@link EndpointScheduler.run} takes it. */
export interface EndpointSettings {
  maxConcurrency?: number;
  ratePerSecond?: number;
}

/**
 * The settings of an endpoint that several subscriptions post to (see {@link endpointOfUrl}):
 * the smallest `maxConcurrency` any of them sets and the smallest `rateLimitPerSecond` any of them
 * sets; one that sets none has no say (16 and no rate apply only when none sets one). Pure.
 * @example sharedEndpointSettings([{ maxConcurrency: 4 }, {}]) // { maxConcurrency: 4 }
 */
export function sharedEndpointSettings(
  subscriptions: Iterable<{ maxConcurrency?: number; rateLimitPerSecond?: number }>,
): EndpointSettings {
  let maxConcurrency: number | undefined;
  let ratePerSecond: number | undefined;
  for (const { maxConcurrency: max, rateLimitPerSecond: rate } of subscriptions) {
    if (max) maxConcurrency = Math.min(maxConcurrency ?? max, max);
    if (rate) ratePerSecond = Math.min(ratePerSecond ?? rate, rate);
  }
  return {
    ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
    ...(ratePerSecond === undefined ? {} : { ratePerSecond }),
  };
}

/** How one request to an endpoint went, for its adaptive concurrency. */
export type EndpointSignal = 'success' | 'overloaded' | 'failure';

/**
 * Longest a delivery waits for a share of its endpoint's slots (other processes hold them all)
 * before it is deferred instead: a Lambda invocation must not wait until its timeout.
 */
export const SLOT_WAIT_LIMIT_MS = 60_000;

/** How far a delivery that waited too long for slots is deferred (a delayed message). */
export const SLOT_DEFER_MS = 5_000;

/**
 * How far work still waiting when its batch's deadline comes is deferred (a delayed message):
 * another invocation takes it up then, in its subject's order.
 */
export const DEADLINE_DEFER_MS = 1_000;

/** How often the line of an endpoint where work waits is checked for work to defer. */
export const LINE_CHECK_MS = 250;

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
 * than its share (see HeldSlots). The dispatcher names an endpoint by its URL ({@link
 * endpointOfUrl}), so the subscriptions that post to one URL share all of this, and a subject by
 * its subscription too (each subscription's deliveries of a subject keep their own order).
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
      this.pump(endpoint, lane);
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
      this.pump(endpoint, lane);
      if (lane.inFlight === 0 && lane.waiting.length === 0) lane.slots?.idle();
    }
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
   * the deferral of work that waited too long for slots ({@link SLOT_WAIT_LIMIT_MS}; this
   * process's own, never stored as the endpoint's pause).
   */
  holdUntil(endpoint: string): number | undefined {
    const lane = this.lanes.get(endpoint);
    const until = Math.max(
      lane?.pausedUntil ?? this.lanelessPauses.get(endpoint) ?? 0,
      lane?.deferUntil ?? 0,
    );
    return until > this.clock.now() ? until : undefined;
  }

  /**
   * Notes that a delivery of `subject` to the endpoint waits for its next attempt until `dueAt`
   * (see WaitingDeliveries.note).
   */
  noteWaiting(endpoint: string, subject: string, deliveryId: string, dueAt: number): void {
    this.waiting.note(endpoint, subject, deliveryId, dueAt);
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
      this.lanelessPauses.delete(endpoint);
      if (this.slots)
        created.slots = new HeldSlots(
          this.slots,
          endpoint,
          this.clock,
          () => slotDemand(created),
          () => this.pump(endpoint, created),
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

  /**
   * Starts what the lane's limits allow, and asks for more slots when they are what holds work
   * back; when the oldest waiting work has waited {@link SLOT_WAIT_LIMIT_MS}, defers it instead.
   */
  private pump(endpoint: string, lane: EndpointLane): void {
    this.startPastDeadline(endpoint, lane);
    this.startWhatMay(endpoint, lane);
    this.checkLineSoon(endpoint, lane);
    if (!lane.slots) return;
    const usable = lane.slots.usable;
    if (lane.inFlight < usable || slotDemand(lane).wanted <= usable || nextSlot(lane) < 0) return;
    const now = this.clock.now();
    if (now - lane.waiting[0]!.since < SLOT_WAIT_LIMIT_MS) {
      lane.slots.askForMore();
      return;
    }
    // Waited too long: what waits starts now without a share and defers itself (no request).
    lane.deferUntil = now + SLOT_DEFER_MS;
    this.startWhatMay(endpoint, lane);
  }

  /**
   * Checks the endpoint's line every {@link LINE_CHECK_MS} while work waits there, and starts
   * what is expected to wait too long to defer itself (sending nothing) to about its turn (see
   * planLineDeferrals): the batches that carry it then end instead of holding their workers, and
   * other endpoints' deliveries with them. A timer, not every start and finish, runs the check:
   * a line of thousands at a fast endpoint costs one pass a quarter second.
   */
  private checkLineSoon(endpoint: string, lane: EndpointLane): void {
    if (lane.lineCheckDue || lane.waiting.length === 0) return;
    lane.lineCheckDue = true;
    void this.clock.sleep(LINE_CHECK_MS).then(() => {
      lane.lineCheckDue = false;
      this.deferWhatWaitsTooLong(lane);
      this.pump(endpoint, lane);
    });
  }

  private deferWhatWaitsTooLong(lane: EndpointLane): void {
    const now = this.clock.now();
    const usable = lane.slots?.usable;
    const step = slowLineStepMs({
      meanMs: lane.meanMs,
      inFlightSince: lane.inFlightSince,
      now,
      concurrency: usable === undefined || usable === 0 ? lane.limit : Math.min(lane.limit, usable),
      minGapMs: minGapMs(lane),
    });
    const slowLongEnough = this.judgedSlow(lane, step !== undefined, now);
    const plan =
      step === undefined || !slowLongEnough
        ? undefined
        : planLineDeferrals({
            slots: lane.waiting,
            busySubjects: lane.busySubjects,
            stepMs: step,
            booked: lane.booked,
            horizonMs: deferralHorizonMs(now - (lane.deferringSince ?? now)),
            now,
          });
    if (!plan || plan.deferrals.length === 0) {
      if (lane.booked.live <= now && lane.booked.bulk <= now) lane.deferringSince = undefined;
      return;
    }
    lane.deferringSince ??= now;
    lane.booked = plan.booked;
    const deferred = new Set(plan.deferrals.map((deferral) => deferral.index));
    const slots = lane.waiting;
    lane.waiting = slots.filter((_, index) => !deferred.has(index));
    for (const { index, until } of plan.deferrals) {
      const slot = slots[index]!;
      if (slot.lane === 'live') lane.liveWaiting--;
      lane.busySubjects.add(slot.subject);
      slot.start({ at: now, deferUntil: until });
    }
  }

  /**
   * Notes this check's judgement of the endpoint (`slow` or not); whether it has been judged slow
   * at every check for {@link SLOW_FOR_MS}. Checks that stopped (nothing waited) start it over.
   */
  private judgedSlow(lane: EndpointLane, slow: boolean, now: number): boolean {
    const continued = now - lane.lastLineCheckAt <= 2 * LINE_CHECK_MS;
    lane.lastLineCheckAt = now;
    if (!slow) {
      lane.slowSince = undefined;
      return false;
    }
    if (lane.slowSince === undefined || !continued) lane.slowSince = now;
    return now - lane.slowSince >= SLOW_FOR_MS;
  }

  /**
   * Starts the waiting work whose deadline has come to defer itself ({@link DEADLINE_DEFER_MS}),
   * a subject's first waiting work only and only while the subject has nothing in flight (its
   * later work follows once that finishes: a subject's deferrals are made in its order), and
   * sets a timer for the next deadline of what still waits.
   */
  private startPastDeadline(endpoint: string, lane: EndpointLane): void {
    if (lane.waitingWithDeadline === 0) return;
    const now = this.clock.now();
    const earlier = new Set<string>();
    const started: { slot: Slot; index: number }[] = [];
    let next = Number.POSITIVE_INFINITY;
    lane.waiting.forEach((slot, index) => {
      const first = !earlier.has(slot.subject) && !lane.busySubjects.has(slot.subject);
      earlier.add(slot.subject);
      if (slot.deadline === undefined) return;
      if (slot.deadline > now) next = Math.min(next, slot.deadline);
      else if (first) started.push({ slot, index });
    });
    if (started.length > 0) {
      const gone = new Set(started.map(({ index }) => index));
      lane.waiting = lane.waiting.filter((_, index) => !gone.has(index));
      for (const { slot } of started) {
        if (slot.lane === 'live') lane.liveWaiting--;
        lane.busySubjects.add(slot.subject);
        slot.start({ at: now, deferUntil: now + DEADLINE_DEFER_MS });
      }
    }
    if (next === Number.POSITIVE_INFINITY) return;
    if (lane.deadlineCheckAt !== undefined && lane.deadlineCheckAt <= next) return;
    lane.deadlineCheckAt = next;
    void this.clock.sleep(next - now).then(() => {
      if (lane.deadlineCheckAt === next) lane.deadlineCheckAt = undefined;
      this.pump(endpoint, lane);
    });
  }

  private startWhatMay(endpoint: string, lane: EndpointLane): void {
    const deferring = lane.deferUntil > this.clock.now();
    const usable = deferring
      ? Number.POSITIVE_INFINITY
      : (lane.slots?.usable ?? Number.POSITIVE_INFINITY);
    while (lane.inFlight < Math.min(lane.limit, usable)) {
      const index = nextSlot(lane);
      if (index < 0) return;
      const now = this.clock.now();
      const spacedAt = lane.lastStartAt + minGapMs(lane);
      if (spacedAt > now) {
        // One timer per endpoint: every finish and every check pumps, and each would add one.
        if (lane.spacingDue) return;
        lane.spacingDue = true;
        void this.clock.sleep(spacedAt - now).then(() => {
          lane.spacingDue = false;
          this.pump(endpoint, lane);
        });
        return;
      }
      const [slot] = lane.waiting.splice(index, 1);
      if (slot!.lane === 'live') lane.liveWaiting--;
      lane.inFlight++;
      lane.inFlightSince.push(now);
      lane.busySubjects.add(slot!.subject);
      lane.lastStartAt = now;
      slot!.start({ at: now });
    }
  }
}
