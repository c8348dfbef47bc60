import type { DispatchLane } from '../publish/publisher.ts';
import type { HeldSlots } from './held-slots.ts';
import type { LineBookings } from './line-wait.ts';

/** One piece of work waiting in an endpoint's line. */
export interface Slot {
  subject: string;
  lane: DispatchLane;
  /** When it began to wait (epoch ms). */
  since: number;
  /**
   * When its batch must start no more requests (epoch ms; see EndpointScheduler.run): from then
   * on it is started to defer itself instead, in its subject's order, taking none of the limit.
   */
  deadline?: number;
  /** Starts the work (see {@link Started}). */
  start: (started: Started) => void;
}

/** How a waiting slot was started: to send (at `at`), or to defer itself until `deferUntil`. */
export interface Started {
  at: number;
  deferUntil?: number;
}

/** What the EndpointScheduler of a process keeps of one endpoint. */
export interface EndpointLane {
  /** The current limit: halves on overload, grows by one after a limit's worth of successes. */
  limit: number;
  max: number;
  inFlight: number;
  /** When each delivery in flight started (epoch ms), in start order. */
  inFlightSince: number[];
  /** The mean time its recent requests took (see nextMeanMs), once one has finished. */
  meanMs: number | undefined;
  /** Whether a check of its line is due (a timer is set for it). */
  lineCheckDue: boolean;
  /** Whether a start held back by its rate limit's spacing is due (a timer is set for it). */
  spacingDue: boolean;
  /** When a timer is set to start the waiting work whose deadline has come, if one is. */
  deadlineCheckAt: number | undefined;
  /** Slots among `waiting` that have a deadline. */
  waitingWithDeadline: number;
  /**
   * When the process stopped sending (EndpointScheduler.stopSending), if it did: the deadline of
   * every slot from then on, whatever its own.
   */
  stoppedAt: number | undefined;
  /** When the last deliveries deferred for their place in its line are expected to start. */
  booked: LineBookings;
  /** Since when it has deferred work for its line, if it does (until all of it is due again). */
  deferringSince: number | undefined;
  /** Since when every check of its line has judged it slow, if the last one did. */
  slowSince: number | undefined;
  /** When its line was last checked (epoch ms). */
  lastLineCheckAt: number;
  successes: number;
  /** When its limit last halved (epoch ms): overloads of requests sent before it are that one. */
  lastHalvedAt: number;
  busySubjects: Set<string>;
  waiting: Slot[];
  /** Slots of the live lane among `waiting`. */
  liveWaiting: number;
  /** Deliveries per second at most over every process, when the subscription sets one. */
  ratePerSecond: number | undefined;
  /** This process's share of the endpoint's slots, when processes share the endpoint. */
  slots: HeldSlots | undefined;
  lastStartAt: number;
  pausedUntil: number;
  /**
   * Until when its deliveries are deferred because they waited too long for slots (this process
   * only; not a pause of the endpoint's): work starts without a share and defers itself.
   */
  deferUntil: number;
}

/** A lane for an endpoint not seen before: its full limit, nothing in flight or waiting. */
export function newEndpointLane(max: number, ratePerSecond: number | undefined): EndpointLane {
  return {
    limit: max,
    max,
    inFlight: 0,
    inFlightSince: [],
    meanMs: undefined,
    lineCheckDue: false,
    spacingDue: false,
    deadlineCheckAt: undefined,
    waitingWithDeadline: 0,
    stoppedAt: undefined,
    booked: { live: 0, bulk: 0 },
    deferringSince: undefined,
    slowSince: undefined,
    lastLineCheckAt: Number.NEGATIVE_INFINITY,
    successes: 0,
    lastHalvedAt: Number.NEGATIVE_INFINITY,
    busySubjects: new Set(),
    waiting: [],
    liveWaiting: 0,
    ratePerSecond,
    slots: undefined,
    lastStartAt: Number.NEGATIVE_INFINITY,
    pausedUntil: 0,
    deferUntil: 0,
  };
}

/**
 * What a lane asks of its share of slots: room for what is in flight and waiting, within its
 * limit; while only bulk work waits, it leaves a quarter of the endpoint's slots to processes
 * with live work (in AWS the bulk dispatch queue's containers, beside the live ones).
 */
export function slotDemand(lane: EndpointLane): { wanted: number; max: number; inUse: number } {
  const busy = lane.inFlight + lane.waiting.length;
  const cap = lane.liveWaiting > 0 ? lane.limit : Math.min(lane.limit, bulkShare(lane.max));
  const wanted = busy === 0 ? 0 : Math.max(lane.inFlight, Math.min(cap, busy));
  return { wanted, max: lane.max, inUse: lane.inFlight };
}

/**
 * The slots bulk work may hold of an endpoint's `max`: all but a quarter (rounded down, so an
 * endpoint of 1 to 3 slots keeps none back). Pure.
 * @example bulkShare(16) === 12
 */
export function bulkShare(max: number): number {
  return max - Math.floor(max / 4);
}

/**
 * The spacing of a lane's starts that keeps its subscription's rate: over every process, each
 * process takes the part of the rate that its share is of the endpoint's slots.
 */
export function minGapMs(lane: EndpointLane): number {
  if (!lane.ratePerSecond) return 0;
  const share = lane.slots ? Math.min(lane.slots.usable, lane.max) / lane.max : 1;
  return share > 0 ? 1000 / (lane.ratePerSecond * share) : 0;
}

/**
 * The waiting slot to start next, or -1: the first whose subject has nothing in flight, unless
 * live work waits behind it. Then the first live slot whose subject has nothing in flight starts
 * before it; where that subject has earlier slots waiting (bulk work: a backfill's `created`
 * ahead of a live change), its earliest one starts instead, ahead of other bulk work, so the
 * live slot waits for its own subject's earlier work and not for the whole bulk line (a
 * subject's work keeps its order whatever its lane). Pure.
 */
export function nextSlot(lane: EndpointLane): number {
  const first = lane.waiting.findIndex((slot) => !lane.busySubjects.has(slot.subject));
  if (first < 0 || lane.liveWaiting === 0 || lane.waiting[first]!.lane === 'live') return first;
  // Slots before `first` are all of subjects in flight.
  const earliestOf = new Map<string, number>();
  for (let i = first; i < lane.waiting.length; i++) {
    const slot = lane.waiting[i]!;
    if (lane.busySubjects.has(slot.subject)) continue;
    const earliest = earliestOf.get(slot.subject);
    if (slot.lane === 'live') return earliest ?? i;
    if (earliest === undefined) earliestOf.set(slot.subject, i);
  }
  return first;
}
