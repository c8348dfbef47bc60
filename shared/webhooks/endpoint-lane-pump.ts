import type { Clock } from '../clock.ts';
import { type EndpointLane, minGapMs, nextSlot, type Slot, slotDemand } from './endpoint-lane.ts';
import { deferralHorizonMs, planLineDeferrals, SLOW_FOR_MS, slowLineStepMs } from './line-wait.ts';

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
 * Starts what the lane's limits allow, and asks for more slots when they are what holds work
 * back; when the oldest waiting work has waited {@link SLOT_WAIT_LIMIT_MS}, defers it instead.
 * EndpointScheduler pumps a lane when work arrives or finishes and HeldSlots when its share
 * changes; the timers set here (line checks, deadlines, rate spacing) pump it again.
 */
export function pumpLane(clock: Clock, lane: EndpointLane): void {
  startPastDeadline(clock, lane);
  startWhatMay(clock, lane);
  checkLineSoon(clock, lane);
  if (!lane.slots) return;
  const usable = lane.slots.usable;
  if (lane.inFlight < usable || slotDemand(lane).wanted <= usable || nextSlot(lane) < 0) return;
  const now = clock.now();
  if (now - lane.waiting[0]!.since < SLOT_WAIT_LIMIT_MS) {
    lane.slots.askForMore();
    return;
  }
  // Waited too long: what waits starts now without a share and defers itself (no request).
  lane.deferUntil = now + SLOT_DEFER_MS;
  startWhatMay(clock, lane);
}

/**
 * Checks the endpoint's line every {@link LINE_CHECK_MS} while work waits there, and starts
 * what is expected to wait too long to defer itself (sending nothing) to about its turn (see
 * planLineDeferrals): the batches that carry it then end instead of holding their workers, and
 * other endpoints' deliveries with them. A timer, not every start and finish, runs the check:
 * a line of thousands at a fast endpoint costs one pass a quarter second.
 */
function checkLineSoon(clock: Clock, lane: EndpointLane): void {
  if (lane.lineCheckDue || lane.waiting.length === 0) return;
  lane.lineCheckDue = true;
  void clock.sleep(LINE_CHECK_MS).then(() => {
    lane.lineCheckDue = false;
    deferWhatWaitsTooLong(clock, lane);
    pumpLane(clock, lane);
  });
}

function deferWhatWaitsTooLong(clock: Clock, lane: EndpointLane): void {
  const now = clock.now();
  const usable = lane.slots?.usable;
  const step = slowLineStepMs({
    meanMs: lane.meanMs,
    inFlightSince: lane.inFlightSince,
    now,
    concurrency: usable === undefined || usable === 0 ? lane.limit : Math.min(lane.limit, usable),
    minGapMs: minGapMs(lane),
  });
  const slowLongEnough = judgedSlow(lane, step !== undefined, now);
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
function judgedSlow(lane: EndpointLane, slow: boolean, now: number): boolean {
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
 * sets a timer for the next deadline of what still waits. Once the process stopped sending
 * (`lane.stoppedAt`), every slot's deadline has come, whatever its own.
 */
function startPastDeadline(clock: Clock, lane: EndpointLane): void {
  if (lane.waitingWithDeadline === 0 && lane.stoppedAt === undefined) return;
  const now = clock.now();
  const earlier = new Set<string>();
  const started: { slot: Slot; index: number }[] = [];
  let next = Number.POSITIVE_INFINITY;
  lane.waiting.forEach((slot, index) => {
    const first = !earlier.has(slot.subject) && !lane.busySubjects.has(slot.subject);
    earlier.add(slot.subject);
    const deadline = lane.stoppedAt ?? slot.deadline;
    if (deadline === undefined) return;
    if (deadline > now) next = Math.min(next, deadline);
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
  void clock.sleep(next - now).then(() => {
    if (lane.deadlineCheckAt === next) lane.deadlineCheckAt = undefined;
    pumpLane(clock, lane);
  });
}

function startWhatMay(clock: Clock, lane: EndpointLane): void {
  const deferring = lane.deferUntil > clock.now();
  const usable = deferring
    ? Number.POSITIVE_INFINITY
    : (lane.slots?.usable ?? Number.POSITIVE_INFINITY);
  while (lane.inFlight < Math.min(lane.limit, usable)) {
    const index = nextSlot(lane);
    if (index < 0) return;
    const now = clock.now();
    const spacedAt = lane.lastStartAt + minGapMs(lane);
    if (spacedAt > now) {
      // One timer per endpoint: every finish and every check pumps, and each would add one.
      if (lane.spacingDue) return;
      lane.spacingDue = true;
      void clock.sleep(spacedAt - now).then(() => {
        lane.spacingDue = false;
        pumpLane(clock, lane);
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
