import type { DispatchLane } from '../publish/publisher.ts';

/**
 * Longest a delivery is expected to wait in an endpoint's line and still wait there. What would
 * wait longer is deferred (a delayed message) to about when its turn would come, so the batch
 * that carries it, and the worker that runs the batch, are free for other endpoints' work.
 */
export const LINE_WAIT_LIMIT_MS = 2_000;

/**
 * Longest a delivery is deferred for its place in a slow endpoint's line at one time, once the
 * endpoint has been slow that long (see {@link deferralHorizonMs}).
 */
export const LINE_DEFER_MAX_MS = 300_000;

/** Longest a delivery is deferred for its place in a line that has only just become slow. */
export const LINE_DEFER_FIRST_MAX_MS = 30_000;

/** How much a finished request moves an endpoint's mean request time (exponential average). */
const MEAN_WEIGHT = 0.2;

/** One delivery waiting in an endpoint's line, as the line's plan sees it. */
export interface LineSlot {
  subject: string;
  lane: DispatchLane;
}

/**
 * Per lane, when the last delivery deferred for its place in the line is expected to start: a
 * live delivery deferred is not booked behind bulk ones deferred before it.
 */
export type LineBookings = Record<DispatchLane, number>;

/**
 * A task started to defer itself for its turn in a slow endpoint's line: until when, and the
 * lane whose line it waited in (a bulk one comes back behind live work).
 */
export interface TurnDeferral {
  until: number;
  lane: DispatchLane;
}

/**
 * The lane whose line a delivery started with `line` waits in, now due at `dueAt`: its lane when
 * its turn there is what it waits for, else undefined (a retry's time, a pause or a subject's
 * earlier delivery that waits longer is not a wait in the line). Once the process has stopped
 * sending (`stopping`), every delivery started with a line was started by the stop, to wait for
 * the next run: it keeps its lane whatever it is due (the stop's hold, read after the delivery
 * started, ends a moment after its line's; a subject's later deliveries are due after its
 * earlier ones). Without it a bulk delivery of the stop came back as live work, and the next
 * run's live changes waited behind hundreds of them. Pure.
 * @example laneWaitedIn({ until: 5_000, lane: 'bulk' }, 5_000) === 'bulk'
 * @example laneWaitedIn({ until: 5_000, lane: 'bulk' }, 5_003, true) === 'bulk'
 */
export function laneWaitedIn(
  line: TurnDeferral | undefined,
  dueAt: number,
  stopping = false,
): DispatchLane | undefined {
  return line !== undefined && (stopping || dueAt <= line.until) ? line.lane : undefined;
}

/**
 * How long an endpoint must have been judged slow, at every check, before its line is
 * deferred. After a stall of the event loop every request in flight looks as old as the stall
 * until the answers that came meanwhile are read; a fast endpoint looks slow for that moment.
 */
export const SLOW_FOR_MS = 500;

/** A waiting delivery to defer: its index in the line, and until when. */
export interface LineDeferral {
  index: number;
  until: number;
}

/**
 * How far ahead a delivery may be deferred for its place in the line: as long as the endpoint
 * has been deferring (`slowForMs`), between {@link LINE_DEFER_FIRST_MAX_MS} and
 * {@link LINE_DEFER_MAX_MS}. A deferred delivery cannot be called back early should the
 * endpoint recover, so a line slow for a moment comes back within half a minute; one slow for
 * long comes back less often (each return costs a read and a write). Pure.
 * @example deferralHorizonMs(0) === LINE_DEFER_FIRST_MAX_MS
 */
export function deferralHorizonMs(slowForMs: number): number {
  return Math.min(LINE_DEFER_MAX_MS, Math.max(LINE_DEFER_FIRST_MAX_MS, slowForMs));
}

/**
 * The endpoint's mean request time after one more request of `sampleMs` (the first sets it).
 * Pure.
 * @example nextMeanMs(undefined, 100) === 100
 */
export function nextMeanMs(meanMs: number | undefined, sampleMs: number): number {
  return meanMs === undefined ? sampleMs : meanMs + MEAN_WEIGHT * (sampleMs - meanMs);
}

/**
 * How slow a request slot of an endpoint must be for its line to be deferred: a request that
 * takes this long, or a rate limit that spaces the slot's requests this far apart. An endpoint
 * answering faster has a long line only while it is busy (a burst, a backfill): deferring would
 * cost a write and a read a delivery and bring nothing back sooner.
 */
export const SLOW_REQUEST_MS = 1_000;

/**
 * How long the line of a slow endpoint moves by one delivery, or undefined for an endpoint
 * that is not slow (see {@link SLOW_REQUEST_MS}): the time a request takes over the requests
 * that run at once, or the gap its rate limit sets if longer. A request takes its recent mean,
 * or as long as the median request in flight has already run when that is longer (a stuck
 * endpoint answers nothing, so its mean alone would never grow; one hung request among many
 * does not move the median). `inFlightSince` holds the starts of the requests in flight, oldest
 * first. Pure.
 * @example slowLineStepMs({ meanMs: 2_000, inFlightSince: [], now: 0, concurrency: 16, minGapMs: 0 }) === 125
 */
export function slowLineStepMs(input: {
  meanMs: number | undefined;
  inFlightSince: readonly number[];
  now: number;
  concurrency: number;
  minGapMs: number;
}): number | undefined {
  const { inFlightSince, now } = input;
  const concurrency = Math.max(1, input.concurrency);
  const median = inFlightSince[Math.floor((inFlightSince.length - 1) / 2)];
  const requestMs = Math.max(input.meanMs ?? 0, median === undefined ? 0 : now - median);
  if (Math.max(requestMs, input.minGapMs * concurrency) < SLOW_REQUEST_MS) return undefined;
  return Math.max(requestMs / concurrency, input.minGapMs);
}

/**
 * Which waiting deliveries to defer, and until when. The line starts live work before bulk
 * work, so positions count live slots first; a slot's expected wait is its position's worth of
 * `stepMs` (see slowLineStepMs). A slot expected to wait longer than {@link LINE_WAIT_LIMIT_MS} is deferred to
 * half that limit before its expected turn, and after the turns of the deliveries of its lane
 * deferred before it (`booked`, returned moved on), so deferred work comes back spread over the
 * time the endpoint needs for it rather than all at once, and live work ahead of bulk work; but
 * no further than `horizonMs` (those come back then and take their place again: their booking
 * ends there, not at the turn they would have had). A subject's
 * first slot is its first in the line's own order: a subject's bulk delivery that waits ahead of
 * its live one goes first, and as live work (see nextSlot), so the live one never defers ahead of
 * it. Only a subject's first slot, and only
 * while the subject has nothing in flight, is deferred: its later ones follow it when they
 * reach the front (they find it waiting, as behind a retry). Pure.
 */
export function planLineDeferrals(input: {
  slots: readonly LineSlot[];
  busySubjects: ReadonlySet<string>;
  stepMs: number;
  booked: LineBookings;
  /** Longest deferral (see {@link deferralHorizonMs}). */
  horizonMs: number;
  now: number;
}): { deferrals: LineDeferral[]; booked: LineBookings } {
  const { slots, busySubjects, stepMs: step, now } = input;
  const booked = { ...input.booked };
  const deferrals: LineDeferral[] = [];
  if (slots.length * step <= LINE_WAIT_LIMIT_MS) return { deferrals, booked };
  // A subject's first slot in the line's own order: its later ones, live or bulk, start after it.
  const firstOfSubject = new Map<string, number>();
  slots.forEach((slot, index) => {
    if (!firstOfSubject.has(slot.subject)) firstOfSubject.set(slot.subject, index);
  });
  let position = 0;
  for (const index of startOrder(slots)) {
    const slot = slots[index]!;
    position++;
    const first = firstOfSubject.get(slot.subject) === index && !busySubjects.has(slot.subject);
    const expectedWait = position * step;
    if (!first || expectedWait <= LINE_WAIT_LIMIT_MS) continue;
    const turn = Math.max(now + expectedWait, booked[slot.lane] + step);
    const until = Math.min(now + input.horizonMs, turn - LINE_WAIT_LIMIT_MS / 2);
    // Booked where it comes back: one deferred to the horizon takes its place in the line again
    // then, and must not find its own later turn booked ahead of it (it would go round again).
    booked[slot.lane] = until + LINE_WAIT_LIMIT_MS / 2;
    deferrals.push({ index, until });
  }
  return { deferrals, booked };
}

/**
 * The indexes of `slots` in the order the line starts them (see nextSlot): live ones first, with
 * the bulk slots of a subject that has a live slot later in the line among them (they start
 * ahead of it), each group in line order. Pure.
 */
function startOrder(slots: readonly LineSlot[]): number[] {
  const live: number[] = [];
  const bulk: number[] = [];
  const liveLater = new Set<string>();
  for (let index = slots.length - 1; index >= 0; index--) {
    const slot = slots[index]!;
    if (slot.lane === 'live') liveLater.add(slot.subject);
    (liveLater.has(slot.subject) ? live : bulk).push(index);
  }
  return [...live.reverse(), ...bulk.reverse()];
}
