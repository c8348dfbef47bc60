import type { Clock } from '../clock.ts';
import type { DispatchLane } from '../publish/publisher.ts';

/**
 * A subject's delivery overdue by this long may have lost its retry message (or been handled out
 * of this process's sight): a later delivery of its subject that finds it this overdue asks the
 * store (DispatchBatch.notBefore) and, while it is still pending, re-enqueues its message and
 * keeps waiting; once it is delivered, dead-lettered or gone, it is forgotten. Never forgotten on
 * lateness alone where a later event asks: a busy queue (a backlog of live events) may hand a
 * retry over any time after its due time, and its subject's later events, queued ahead of it,
 * must still wait for it. The sweep of subjects nobody asks about (see sweepOverdue) hands
 * them to the next batch, which asks the store the same way (DispatchBatch.flush; in an idle
 * local run, see startIdleOverdueCheck), so one whose message was lost is sent again however
 * late, and the settled ones are forgotten.
 */
export const FORGOTTEN_AFTER_MS = 15 * 60_000;

/** How long a delivery waits behind an earlier one of its subject that is due but not yet sent. */
export const OVERDUE_PREDECESSOR_WAIT_MS = 1000;

/** The longest a delivery waits before it looks again behind a predecessor long overdue. */
export const OVERDUE_PREDECESSOR_MAX_WAIT_MS = 60_000;

/**
 * How long a delivery waits before it looks again behind a predecessor overdue by
 * `overdueByMs`: `leastMs` ({@link OVERDUE_PREDECESSOR_WAIT_MS} by this process's memory, more
 * with a waiting ledger), and once the predecessor is later than four times that, a quarter of
 * its lateness, up to {@link OVERDUE_PREDECESSOR_MAX_WAIT_MS}. A retry a busy queue hands over
 * minutes late then costs its successors a few dozen looks until it is settled (or, 15 minutes
 * overdue, read from the store), not one every `leastMs`, and a successor follows it within a quarter of the
 * delay it already had. Pure.
 * @example overdueWaitMs(120_000) === 30_000
 */
export function overdueWaitMs(overdueByMs: number, leastMs = OVERDUE_PREDECESSOR_WAIT_MS): number {
  const quarter = Math.floor(overdueByMs / 4);
  return Math.min(OVERDUE_PREDECESSOR_MAX_WAIT_MS, Math.max(leastMs, quarter));
}

/**
 * When a delivery may go after earlier deliveries of its subject due at `dueAhead`: just after
 * them, or, if they are already due (their attempt is on its way), `overdueWaitMs` from now.
 * Pure.
 * @example afterPredecessors(10_000, 5_000) === 10_001
 */
export function afterPredecessors(
  dueAhead: number,
  now: number,
  overdueWaitMs = OVERDUE_PREDECESSOR_WAIT_MS,
): number {
  return dueAhead > now ? dueAhead + 1 : now + overdueWaitMs;
}

/** Every this many notes, waiting deliveries long overdue are looked for everywhere (see dueAhead). */
const SWEEP_EVERY_NOTES = 1000;

/** A waiting delivery the sweep found overdue by more than {@link FORGOTTEN_AFTER_MS}. */
export interface LongOverdue {
  endpoint: string;
  subject: string;
  deliveryId: string;
}

/** What parts a subject key (an endpoint is a subscription id, which holds no such character). */
const SUBJECT_KEY_SEPARATOR = '\u0000';

/** The key of one endpoint's subject in maps of waiting deliveries (this memory, the ledger's). Pure. */
export const subjectKeyAt = (endpoint: string, subject: string) =>
  `${endpoint}${SUBJECT_KEY_SEPARATOR}${subject}`;

/**
 * Per endpoint and subject, the deliveries that wait for a later attempt (a retry, a deferral
 * behind a pause), in the order they were first noted, which is the order their events were
 * detected in: a subject's later delivery waits behind them (see EndpointScheduler).
 */
export class WaitingDeliveries {
  /** Per endpoint and subject, deliveries waiting for a later attempt: due time, in order. */
  private readonly bySubject = new Map<string, Map<string, number>>();
  /**
   * Those of them noted as a backfill's (see DeliverySchema.lane) and not yet sent ahead of a
   * later delivery of their subject (see takeBulkAhead), by delivery id.
   */
  private readonly bulk = new Set<string>();
  private notesSinceSweep = 0;
  /** When the memory was last swept (see takeLongOverdue). */
  private sweptAt: number;
  /** What the last sweeps found long overdue, by delivery id, until a batch takes it. */
  private readonly swept = new Map<string, LongOverdue>();

  constructor(private readonly clock: Clock) {
    this.sweptAt = clock.now();
  }

  /**
   * Notes that a delivery of `subject` to the endpoint waits for its next attempt until `dueAt`
   * (a retry, a deferral). A subject's waiting deliveries keep the order in which they were
   * first noted, which is the order their events were detected in. `lane`: the delivery's own
   * (see DeliverySchema.lane; see {@link takeBulkAhead}).
   */
  note(
    endpoint: string,
    subject: string,
    deliveryId: string,
    dueAt: number,
    lane?: DispatchLane,
  ): void {
    const key = subjectKeyAt(endpoint, subject);
    const waiting = this.bySubject.get(key) ?? new Map<string, number>();
    waiting.set(deliveryId, dueAt);
    // As its latest note says (a delivery sent ahead is live work from then on).
    if (lane === 'bulk') this.bulk.add(deliveryId);
    else this.bulk.delete(deliveryId);
    this.bySubject.set(key, waiting);
    if (++this.notesSinceSweep >= SWEEP_EVERY_NOTES) this.sweepOverdue();
  }

  /** Whether any delivery is noted as waiting now (without counting them). */
  get any(): boolean {
    return this.bySubject.size > 0;
  }

  /** Deliveries noted as waiting now, over every endpoint and subject. */
  get size(): number {
    let count = 0;
    for (const waiting of this.bySubject.values()) count += waiting.size;
    return count;
  }

  /**
   * Finds every waiting delivery overdue by more than {@link FORGOTTEN_AFTER_MS}, of subjects no
   * later event asks about too, for {@link takeLongOverdue}: its retry message may be lost (or
   * its delivery settled out of this process's sight, or its message merely late). It stays
   * noted until a batch has asked the store about it (it runs within a note, which reads
   * nothing): forgotten on lateness alone, a delivery whose message was lost would never be
   * attempted again, and its subject would lose its order.
   */
  private sweepOverdue(): void {
    this.notesSinceSweep = 0;
    const now = this.clock.now();
    this.sweptAt = now;
    for (const [key, waiting] of this.bySubject) {
      for (const [deliveryId, dueAt] of waiting) {
        if (dueAt + FORGOTTEN_AFTER_MS >= now) continue;
        const split = key.indexOf(SUBJECT_KEY_SEPARATOR);
        const endpoint = key.slice(0, split);
        this.swept.set(deliveryId, { endpoint, subject: key.slice(split + 1), deliveryId });
      }
    }
  }

  /**
   * The long-overdue deliveries the sweeps found since the last call (each once): the caller
   * asks the store about them, then notes them settled or waiting again. One left alone is
   * found again by a later sweep. Sweeps first when the last sweep is
   * {@link FORGOTTEN_AFTER_MS} old: a process that notes few retries still finds them.
   */
  takeLongOverdue(): LongOverdue[] {
    const now = this.clock.now();
    if (now - this.sweptAt >= FORGOTTEN_AFTER_MS) this.sweepOverdue();
    if (this.swept.size === 0) return [];
    // Those settled or noted again (a retry came) since the sweep are left out.
    const taken = [...this.swept.values()].filter(({ endpoint, subject, deliveryId }) => {
      const dueAt = this.bySubject.get(subjectKeyAt(endpoint, subject))?.get(deliveryId);
      return dueAt !== undefined && dueAt + FORGOTTEN_AFTER_MS < now;
    });
    this.swept.clear();
    return taken;
  }

  /** Notes that a delivery of `subject` waits no longer (delivered, dead-lettered, gone). */
  settle(endpoint: string, subject: string, deliveryId: string): void {
    const key = subjectKeyAt(endpoint, subject);
    const waiting = this.bySubject.get(key);
    if (!waiting?.delete(deliveryId)) return;
    this.bulk.delete(deliveryId);
    if (waiting.size > 0) return;
    this.bySubject.delete(key);
  }

  /**
   * The first delivery of `subject` to the endpoint that waits (the earliest noted, so the next
   * in detection order), with its due time; undefined when none does.
   */
  firstOf(endpoint: string, subject: string): { deliveryId: string; dueAt: number } | undefined {
    for (const [deliveryId, dueAt] of this.bySubject.get(subjectKeyAt(endpoint, subject)) ?? [])
      return { deliveryId, dueAt };
    return undefined;
  }

  /**
   * The deliveries of `subject` to the endpoint noted before `deliveryId` (all of them, if it
   * was never noted) as a backfill's, which a later delivery of their subject now waits behind:
   * each is told once (no longer noted as a backfill's until noted so again), for a message
   * that takes it ahead of the bulk lane's backlog (see DispatchBatch.notBefore).
   */
  takeBulkAhead(endpoint: string, subject: string, deliveryId: string): string[] {
    const taken: string[] = [];
    for (const id of this.bySubject.get(subjectKeyAt(endpoint, subject))?.keys() ?? []) {
      if (id === deliveryId) break;
      if (this.bulk.delete(id)) taken.push(id);
    }
    return taken;
  }

  /**
   * When the deliveries of `subject` to the endpoint noted before `deliveryId` (all of them, if
   * it was never noted) are due: the latest of their times, or undefined when none waits. One
   * overdue by more than {@link FORGOTTEN_AFTER_MS} still counts: the caller asks the store about
   * it (see {@link overdueAhead}) rather than forget it on lateness alone.
   */
  dueAhead(endpoint: string, subject: string, deliveryId: string): number | undefined {
    let latest: number | undefined;
    for (const [id, dueAt] of this.bySubject.get(subjectKeyAt(endpoint, subject)) ?? []) {
      if (id === deliveryId) break;
      latest = Math.max(latest ?? dueAt, dueAt);
    }
    return latest;
  }

  /** Whether a delivery of `subject` to the endpoint noted after `deliveryId` waits (behind it). */
  waitsBehind(endpoint: string, subject: string, deliveryId: string): boolean {
    let after = false;
    for (const id of this.bySubject.get(subjectKeyAt(endpoint, subject))?.keys() ?? []) {
      if (after) return true;
      after = id === deliveryId;
    }
    return false;
  }

  /**
   * The deliveries of `subject` to the endpoint noted before `deliveryId` (all of them, if it
   * was never noted) that are overdue by more than {@link FORGOTTEN_AFTER_MS}: their retry
   * message may be lost, or handled out of this process's sight.
   */
  overdueAhead(endpoint: string, subject: string, deliveryId: string): string[] {
    const now = this.clock.now();
    const overdue: string[] = [];
    for (const [id, dueAt] of this.bySubject.get(subjectKeyAt(endpoint, subject)) ?? []) {
      if (id === deliveryId) break;
      if (dueAt + FORGOTTEN_AFTER_MS < now) overdue.push(id);
    }
    return overdue;
  }
}
