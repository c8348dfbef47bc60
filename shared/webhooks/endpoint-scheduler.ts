import type { Clock } from '../clock.ts';
import type { DispatchLane } from '../publish/publisher.ts';

/** Deliveries in flight to one endpoint unless its subscription says otherwise. */
export const ENDPOINT_CONCURRENCY_DEFAULT = 16;

/**
 * A subject's delivery overdue by this long is no longer waited for: its retry is handled
 * within a second or so of its due time, so one this late was handled out of this process's
 * sight (a replay, another process) and would otherwise hold its subject back for good.
 */
export const FORGOTTEN_AFTER_MS = 60_000;

/** How long a delivery waits behind an earlier one of its subject that is due but not yet sent. */
export const OVERDUE_PREDECESSOR_WAIT_MS = 1000;

/**
 * When a delivery may go after earlier deliveries of its subject due at `dueAhead`: just after
 * them, or, if they are already due (their attempt is on its way), a moment from now. Pure.
 * @example afterPredecessors(10_000, 5_000) === 10_001
 */
export function afterPredecessors(dueAhead: number, now: number): number {
  return dueAhead > now ? dueAhead + 1 : now + OVERDUE_PREDECESSOR_WAIT_MS;
}

/** Every this many notes, waiting deliveries long overdue are forgotten everywhere (see dueAhead). */
const SWEEP_EVERY_NOTES = 1000;

const subjectKeyAt = (endpoint: string, subject: string) => `${endpoint}\u0000${subject}`;

/** How one request to an endpoint went, for its adaptive concurrency. */
export type EndpointSignal = 'success' | 'overloaded' | 'failure';

interface Slot {
  subject: string;
  lane: DispatchLane;
  start: () => void;
}

interface EndpointLane {
  /** The current limit: halves on overload, grows by one after a limit's worth of successes. */
  limit: number;
  max: number;
  inFlight: number;
  successes: number;
  busySubjects: Set<string>;
  waiting: Slot[];
  /** Slots of the live lane among `waiting`. */
  liveWaiting: number;
  /** Deliveries per second at most (token spacing), when the subscription sets a rate. */
  minGapMs: number;
  lastStartAt: number;
  pausedUntil: number;
}

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
 * events in one lane while its bulk events wait; see DispatchLanes).
 */
export class EndpointScheduler {
  private readonly lanes = new Map<string, EndpointLane>();
  /** Per endpoint and subject, deliveries waiting for a later attempt: due time, in order. */
  private readonly waitingBySubject = new Map<string, Map<string, number>>();
  private notesSinceSweep = 0;

  constructor(private readonly clock: Clock) {}

  /**
   * Runs `work` when the endpoint has room and `subject` has nothing in flight there. Work for
   * one subject starts in the order it was asked for; live work before bulk work.
   */
  async run<T>(
    endpoint: string,
    subject: string,
    settings: { maxConcurrency?: number; ratePerSecond?: number },
    work: () => Promise<T>,
    priority: DispatchLane = 'live',
  ): Promise<T> {
    const lane = this.lane(endpoint, settings);
    await new Promise<void>((start) => {
      lane.waiting.push({ subject, lane: priority, start });
      if (priority === 'live') lane.liveWaiting++;
      this.pump(endpoint, lane);
    });
    try {
      return await work();
    } finally {
      lane.inFlight--;
      lane.busySubjects.delete(subject);
      this.pump(endpoint, lane);
    }
  }

  /** Feeds one request's result into the endpoint's adaptive limit. */
  record(endpoint: string, signal: EndpointSignal): void {
    const lane = this.lanes.get(endpoint);
    if (!lane) return;
    if (signal === 'overloaded') {
      lane.limit = Math.max(1, Math.floor(lane.limit / 2));
      lane.successes = 0;
    } else if (signal === 'success') {
      lane.successes++;
      if (lane.successes >= lane.limit && lane.limit < lane.max) {
        lane.limit++;
        lane.successes = 0;
      }
    }
  }

  /** The endpoint's current concurrency limit (for metrics and tests). */
  limitOf(endpoint: string): number | undefined {
    return this.lanes.get(endpoint)?.limit;
  }

  /** Holds every new request to the endpoint until `untilMs` (a Retry-After). */
  pause(endpoint: string, untilMs: number): void {
    const lane = this.lanes.get(endpoint);
    if (lane) lane.pausedUntil = Math.max(lane.pausedUntil, untilMs);
  }

  /** Until when the endpoint is paused in this process, if it is. */
  pausedUntil(endpoint: string): number | undefined {
    const until = this.lanes.get(endpoint)?.pausedUntil ?? 0;
    return until > this.clock.now() ? until : undefined;
  }

  /**
   * Notes that a delivery of `subject` to the endpoint waits for its next attempt until `dueAt`
   * (a retry, a deferral). A subject's waiting deliveries keep the order in which they were
   * first noted, which is the order their events were detected in.
   */
  noteWaiting(endpoint: string, subject: string, deliveryId: string, dueAt: number): void {
    const key = subjectKeyAt(endpoint, subject);
    const waiting = this.waitingBySubject.get(key) ?? new Map<string, number>();
    waiting.set(deliveryId, dueAt);
    this.waitingBySubject.set(key, waiting);
    if (++this.notesSinceSweep >= SWEEP_EVERY_NOTES) this.forgetOverdue();
  }

  /** Deliveries noted as waiting now, over every endpoint and subject. */
  get waitingDeliveries(): number {
    let count = 0;
    for (const waiting of this.waitingBySubject.values()) count += waiting.size;
    return count;
  }

  /**
   * Forgets every waiting delivery overdue by more than {@link FORGOTTEN_AFTER_MS}, as
   * {@link dueAhead} does for one subject: those of subjects no later event asks about (their
   * retry handled out of this process's sight) would otherwise stay for the process's life.
   */
  private forgetOverdue(): void {
    this.notesSinceSweep = 0;
    const now = this.clock.now();
    for (const key of this.waitingBySubject.keys()) this.waitingOf(key, now);
  }

  /**
   * The deliveries of one endpoint and subject still waited for at `now`: those overdue by more
   * than {@link FORGOTTEN_AFTER_MS} are forgotten first (and the entry, once empty).
   */
  private waitingOf(key: string, now: number): Map<string, number> | undefined {
    const waiting = this.waitingBySubject.get(key);
    if (!waiting) return undefined;
    for (const [id, dueAt] of waiting) if (dueAt + FORGOTTEN_AFTER_MS < now) waiting.delete(id);
    if (waiting.size > 0) return waiting;
    this.waitingBySubject.delete(key);
    return undefined;
  }

  /** Notes that a delivery of `subject` waits no longer (delivered, dead-lettered, gone). */
  noteSettled(endpoint: string, subject: string, deliveryId: string): void {
    const key = subjectKeyAt(endpoint, subject);
    const waiting = this.waitingBySubject.get(key);
    if (!waiting?.delete(deliveryId) || waiting.size > 0) return;
    this.waitingBySubject.delete(key);
  }

  /**
   * When the deliveries of `subject` to the endpoint noted before `deliveryId` (all of them, if
   * it was never noted) are due: the latest of their times, or undefined when none waits. One
   * overdue by more than {@link FORGOTTEN_AFTER_MS} is forgotten (this process lost track of
   * it), so a subject is never held back for good.
   */
  dueAhead(endpoint: string, subject: string, deliveryId: string): number | undefined {
    const waiting = this.waitingOf(subjectKeyAt(endpoint, subject), this.clock.now());
    let latest: number | undefined;
    for (const [id, dueAt] of waiting ?? []) {
      if (id === deliveryId) break;
      latest = Math.max(latest ?? dueAt, dueAt);
    }
    return latest;
  }

  private lane(
    endpoint: string,
    settings: { maxConcurrency?: number; ratePerSecond?: number },
  ): EndpointLane {
    const max = settings.maxConcurrency ?? ENDPOINT_CONCURRENCY_DEFAULT;
    const minGapMs = settings.ratePerSecond ? 1000 / settings.ratePerSecond : 0;
    let lane = this.lanes.get(endpoint);
    if (!lane) {
      lane = {
        limit: max,
        max,
        inFlight: 0,
        successes: 0,
        busySubjects: new Set(),
        waiting: [],
        liveWaiting: 0,
        minGapMs,
        lastStartAt: Number.NEGATIVE_INFINITY,
        pausedUntil: 0,
      };
      this.lanes.set(endpoint, lane);
    } else {
      // The subscription was changed: new bounds apply from now on.
      lane.max = max;
      lane.limit = Math.min(lane.limit, max);
      lane.minGapMs = minGapMs;
    }
    return lane;
  }

  private pump(endpoint: string, lane: EndpointLane): void {
    while (lane.inFlight < lane.limit) {
      const index = nextSlot(lane);
      if (index < 0) return;
      const now = this.clock.now();
      const spacedAt = lane.lastStartAt + lane.minGapMs;
      if (spacedAt > now) {
        void this.clock.sleep(spacedAt - now).then(() => this.pump(endpoint, lane));
        return;
      }
      const [slot] = lane.waiting.splice(index, 1);
      if (slot!.lane === 'live') lane.liveWaiting--;
      lane.inFlight++;
      lane.busySubjects.add(slot!.subject);
      lane.lastStartAt = now;
      slot!.start();
    }
  }
}

/**
 * The waiting slot to start next, or -1: the first whose subject has nothing in flight, unless a
 * live slot can start before it, one whose subject has no earlier slot waiting (a subject's
 * work keeps its order whatever its lane).
 */
function nextSlot(lane: EndpointLane): number {
  const first = lane.waiting.findIndex((slot) => !lane.busySubjects.has(slot.subject));
  if (first < 0 || lane.liveWaiting === 0 || lane.waiting[first]!.lane === 'live') return first;
  const earlier = new Set<string>();
  for (let i = 0; i < lane.waiting.length; i++) {
    const slot = lane.waiting[i]!;
    const free = !lane.busySubjects.has(slot.subject) && !earlier.has(slot.subject);
    if (i > first && slot.lane === 'live' && free) return i;
    earlier.add(slot.subject);
  }
  return first;
}
