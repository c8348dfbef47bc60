import type { DispatchLane } from '../publish/publisher.ts';
import { FORGOTTEN_AFTER_MS, subjectKeyAt } from './waiting-deliveries.ts';

/**
 * With a waiting ledger, a delivery overdue by this long may have lost its retry message: a batch
 * that finds it ahead of a later delivery of its subject asks the store, re-enqueues its message
 * while it is pending (the later one keeps waiting) and removes its mark once it is delivered,
 * dead-lettered or gone. As a process's own memory (FORGOTTEN_AFTER_MS): the marks are settled by
 * whichever process delivers, and a busy queue can hand a retry over any time late.
 */
export const LEDGER_FORGOTTEN_AFTER_MS = FORGOTTEN_AFTER_MS;

/**
 * With a waiting ledger, how long a delivery waits behind an earlier one of its subject that is
 * due but not yet settled: its attempt may be in flight in another container (up to the
 * delivery timeout), and every look again costs a delayed message and writes (the least wait
 * of overdueWaitMs with a ledger).
 */
export const LEDGER_OVERDUE_PREDECESSOR_WAIT_MS = 5_000;

/** One delivery that waits for a later attempt at an endpoint, as the ledger keeps it. */
export interface WaitingMark {
  deliveryId: string;
  /** When its next attempt is due (epoch ms). */
  dueAt: number;
  /** When it was first noted as waiting (epoch ms): a subject's deliveries wait in this order. */
  notedAt: number;
  /**
   * Noted as a backfill's (see DeliverySchema.lane) and not yet sent ahead of a later delivery
   * of its subject (see WaitingLedger.takeBulk); absent: live work.
   */
  bulk?: true;
}

/** A delivery of `subject` at `endpoint` (a subscription id) that waits until `dueAt`, or no longer. */
export interface WaitingChange {
  endpoint: string;
  subject: string;
  deliveryId: string;
  /** Its next attempt's due time; absent: it waits no longer (delivered, dead-lettered, gone). */
  dueAt?: number;
  /** The delivery's lane as it is noted (see WaitingMark.bulk); absent: live work. */
  lane?: DispatchLane;
}

/**
 * Which deliveries wait for a later attempt, per endpoint and subject, shared by every process
 * that delivers (in AWS, the dispatcher's containers): a container that receives a subject's
 * later event learns that an earlier one waits for a retry that another container scheduled,
 * and sends it after that one. Each process still keeps its own memory of the same
 * (WaitingDeliveries); this is what the others noted.
 */
export interface WaitingLedger {
  /**
   * How many deliveries to the endpoint may wait: never fewer than do (0: none, and nothing
   * more need be read for the endpoint), possibly more after a crash between two writes.
   */
  countAt(endpoint: string): Promise<number>;
  /** The deliveries of `subject` that wait at the endpoint, in the order they were first noted. */
  waitingOf(endpoint: string, subject: string): Promise<WaitingMark[]>;
  /**
   * Notes deliveries as waiting (with `dueAt`; one noted before keeps its place) or as waiting
   * no longer (without); those noted first here take their places in the order of `changes`
   * (see notedAtOf). Throws when the store failed (some may be written).
   */
  apply(changes: readonly WaitingChange[], now: number): Promise<void>;
  /**
   * Of the deliveries of `subject` at the endpoint, those still marked as a backfill's: each is
   * taken by one caller only, whichever process asks (its mark becomes live work's, due at
   * `now`), for a message that sends it ahead of the bulk lane (see DispatchBatch.notBefore).
   * Throws when the store failed (some may be taken).
   */
  takeBulk(
    endpoint: string,
    subject: string,
    deliveryIds: readonly string[],
    now: number,
  ): Promise<string[]>;
}

/**
 * When the deliveries noted before `deliveryId` (all of them, if it is not among `marks`) are
 * due: the latest of their times, or undefined when none waits. One overdue by more than
 * {@link LEDGER_FORGOTTEN_AFTER_MS} still counts (see isLost: the batch asks the store about
 * it). `marks` are in the order they were noted. Pure.
 * @example dueAheadOf([{ deliveryId: 'd1', dueAt: 9_000, notedAt: 1 }], 'd2') === 9_000
 */
export function dueAheadOf(marks: readonly WaitingMark[], deliveryId: string): number | undefined {
  let latest: number | undefined;
  for (const mark of marks) {
    if (mark.deliveryId === deliveryId) break;
    latest = Math.max(latest ?? mark.dueAt, mark.dueAt);
  }
  return latest;
}

/**
 * Whether a mark is overdue by more than {@link LEDGER_FORGOTTEN_AFTER_MS}: its retry message may
 * be lost (or its delivery settled without its mark removed). Pure.
 */
export function isLost(mark: WaitingMark, now: number): boolean {
  return mark.dueAt + LEDGER_FORGOTTEN_AFTER_MS < now;
}

/**
 * When the change at `index` of `count` applied together at `now` is noted: within `now`'s
 * millisecond, in the order of the changes. A batch notes a subject's deliveries in their order
 * (a chain deferred, a pause); noted at one `now`, their ties would fall to the delivery ids
 * (random), and another process would send a later one first. Pure.
 * @example notedAtOf(1_000, 1, 4) === 1_000.25
 */
export function notedAtOf(now: number, index: number, count: number): number {
  return now + index / count;
}

/** Orders marks as they were first noted (ties by delivery id, as a store lists them). Pure. */
export function inNotedOrder(marks: WaitingMark[]): WaitingMark[] {
  return marks.sort(
    (a, b) =>
      a.notedAt - b.notedAt || (a.deliveryId < b.deliveryId ? -1 : +(a.deliveryId > b.deliveryId)),
  );
}

/** {@link WaitingLedger} in memory, for tests of processes that share one. */
export class MemoryWaitingLedger implements WaitingLedger {
  private readonly marks = new Map<string, Map<string, WaitingMark>>();

  async countAt(endpoint: string): Promise<number> {
    let count = 0;
    for (const [key, marks] of this.marks)
      if (key.startsWith(subjectKeyAt(endpoint, ''))) count += marks.size;
    return count;
  }

  async waitingOf(endpoint: string, subject: string): Promise<WaitingMark[]> {
    return inNotedOrder([...(this.marks.get(subjectKeyAt(endpoint, subject))?.values() ?? [])]);
  }

  async apply(changes: readonly WaitingChange[], now: number): Promise<void> {
    for (const [index, { endpoint, subject, deliveryId, dueAt, lane }] of changes.entries()) {
      const key = subjectKeyAt(endpoint, subject);
      const marks = this.marks.get(key) ?? new Map<string, WaitingMark>();
      if (dueAt === undefined) marks.delete(deliveryId);
      else
        marks.set(deliveryId, {
          deliveryId,
          dueAt,
          notedAt: marks.get(deliveryId)?.notedAt ?? notedAtOf(now, index, changes.length),
          ...(lane === 'bulk' ? { bulk: true as const } : {}),
        });
      if (marks.size > 0) this.marks.set(key, marks);
      else this.marks.delete(key);
    }
  }

  async takeBulk(
    endpoint: string,
    subject: string,
    deliveryIds: readonly string[],
    now: number,
  ): Promise<string[]> {
    const marks = this.marks.get(subjectKeyAt(endpoint, subject));
    if (!marks) return [];
    const taken: string[] = [];
    for (const id of deliveryIds) {
      const mark = marks.get(id);
      if (!mark?.bulk) continue;
      marks.set(id, { deliveryId: id, dueAt: now, notedAt: mark.notedAt });
      taken.push(id);
    }
    return taken;
  }
}
