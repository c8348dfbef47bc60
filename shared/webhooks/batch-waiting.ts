import type { Clock } from '../clock.ts';
import type { DispatchLogger } from './dispatcher-deps.ts';
import type { Delivery } from './store.ts';
import { subjectKeyAt } from './waiting-deliveries.ts';
import {
  dueAheadOf,
  isLost,
  type WaitingChange,
  type WaitingLedger,
  type WaitingMark,
} from './waiting-ledger.ts';

/**
 * One dispatch batch's view of the waiting ledger: what every process had noted as waiting
 * when the batch read it (each endpoint's count once, and only where something waits each
 * subject's marks), with what the batch noted since; and the batch's own notes, written
 * together by {@link write}.
 */
export class BatchWaiting {
  /** Per endpoint, how many deliveries the ledger says may wait there. */
  private readonly counts = new Map<string, Promise<number>>();
  /** Per endpoint and subject, the ledger's waiting deliveries as read. */
  private readonly marks = new Map<string, Promise<WaitingMark[]>>();
  /** What the batch's deliveries change in the ledger. */
  private readonly changes: WaitingChange[] = [];
  /**
   * Per endpoint and subject, what this batch noted since it read the ledger: a delivery's due
   * time while it waits, `undefined` once it waits no longer (the ledger read before lists it).
   */
  private readonly notedHere = new Map<string, Map<string, number | undefined>>();

  constructor(
    private readonly ledger: WaitingLedger,
    private readonly clock: Clock,
    private readonly logger: DispatchLogger,
  ) {}

  /** The ledger's waiting deliveries of `subject` at the endpoint, read once per batch. */
  read(endpoint: string, subject: string): Promise<WaitingMark[]> {
    let count = this.counts.get(endpoint);
    if (!count) {
      count = this.ledger.countAt(endpoint);
      this.counts.set(endpoint, count);
    }
    const key = subjectKeyAt(endpoint, subject);
    let marks = this.marks.get(key);
    if (!marks) {
      marks = count.then((waiting) => (waiting > 0 ? this.readMarks(endpoint, subject) : []));
      this.marks.set(key, marks);
    }
    return marks;
  }

  /**
   * The ledger's marks of one subject, lost ones (see isLost) too: a batch that finds one ahead
   * of a later delivery asks the store about it (DispatchBatch.notBefore) and removes its mark
   * ({@link forget}) once it is settled, so the endpoint's count comes back down.
   */
  private readMarks(endpoint: string, subject: string): Promise<WaitingMark[]> {
    return this.ledger.waitingOf(endpoint, subject);
  }

  /**
   * When the deliveries of `subject` that wait at the endpoint ahead of `deliveryId` are due,
   * by the ledger as read and the batch's notes since (see dueAheadOf); undefined when none.
   */
  async dueAhead(
    endpoint: string,
    subject: string,
    deliveryId: string,
  ): Promise<number | undefined> {
    return dueAheadOf(await this.marksOf(endpoint, subject), deliveryId);
  }

  /**
   * The deliveries of `subject` that wait at the endpoint ahead of `deliveryId` and are overdue
   * by more than 15 minutes (see isLost): their retry message may be lost.
   */
  async lostAhead(endpoint: string, subject: string, deliveryId: string): Promise<string[]> {
    const now = this.clock.now();
    const lost: string[] = [];
    for (const mark of await this.marksOf(endpoint, subject)) {
      if (mark.deliveryId === deliveryId) break;
      if (isLost(mark, now)) lost.push(mark.deliveryId);
    }
    return lost;
  }

  /** Notes that a delivery of `subject` at the endpoint waits no longer (settled, or gone). */
  forget(endpoint: string, subject: string, deliveryId: string): void {
    this.changes.push({ endpoint, subject, deliveryId });
    this.noteHere(endpoint, subject, deliveryId, undefined);
  }

  /**
   * The deliveries of `subject` at the endpoint that `deliveryId` waits behind and that the
   * ledger, as read, marks as a backfill's, taken in the ledger (see WaitingLedger.takeBulk:
   * each by one process only, due now from then on) for messages that send them ahead. Those
   * this batch noted since it read are left (their notes are not written yet). A failed take is
   * logged: the later delivery waits for them as before.
   */
  async takeBulkAhead(endpoint: string, subject: string, deliveryId: string): Promise<string[]> {
    const noted = this.notedHere.get(subjectKeyAt(endpoint, subject));
    const bulk: string[] = [];
    for (const mark of await this.read(endpoint, subject)) {
      if (mark.deliveryId === deliveryId) break;
      if (mark.bulk && !noted?.has(mark.deliveryId)) bulk.push(mark.deliveryId);
    }
    if (bulk.length === 0) return [];
    const now = this.clock.now();
    try {
      const taken = await this.ledger.takeBulk(endpoint, subject, bulk, now);
      for (const id of taken) this.noteHere(endpoint, subject, id, now);
      return taken;
    } catch (error) {
      this.logger.error('taking waiting deliveries ahead failed', {
        deliveries: bulk,
        error: String(error),
      });
      return [];
    }
  }

  /** What the batch knows of a delivery since it read the ledger (see notedHere). */
  private noteHere(
    endpoint: string,
    subject: string,
    deliveryId: string,
    dueAt: number | undefined,
  ): void {
    const key = subjectKeyAt(endpoint, subject);
    const noted = this.notedHere.get(key) ?? new Map<string, number | undefined>();
    noted.set(deliveryId, dueAt);
    this.notedHere.set(key, noted);
  }

  /** The marks of `subject` at the endpoint, by the ledger as read and the batch's notes since, in order. */
  private async marksOf(endpoint: string, subject: string): Promise<WaitingMark[]> {
    const read = await this.read(endpoint, subject);
    const noted = this.notedHere.get(subjectKeyAt(endpoint, subject));
    const marks: WaitingMark[] = [];
    for (const mark of read) {
      if (!noted?.has(mark.deliveryId)) marks.push(mark);
      else if (noted.get(mark.deliveryId) !== undefined)
        marks.push({ ...mark, dueAt: noted.get(mark.deliveryId)! });
    }
    const now = this.clock.now();
    // Noted first by this batch: after everything the ledger listed.
    for (const [id, dueAt] of noted ?? [])
      if (dueAt !== undefined && !read.some((mark) => mark.deliveryId === id))
        marks.push({ deliveryId: id, dueAt, notedAt: now });
    return marks;
  }

  /**
   * Notes that `delivery` waits for its next attempt (pending) or, if it `waited`, no longer; a
   * backfill's waiting delivery is noted as such (see WaitingMark.bulk).
   */
  note(delivery: Delivery, subject: string, waited: boolean): void {
    const { subscriptionId: endpoint, id: deliveryId } = delivery;
    const pending = delivery.status === 'pending';
    if (!pending && !waited) return;
    const dueAt = pending ? delivery.nextAttemptAt : undefined;
    this.changes.push({
      endpoint,
      subject,
      deliveryId,
      ...(pending ? { dueAt } : {}),
      ...(pending && delivery.lane === 'bulk' ? { lane: delivery.lane } : {}),
    });
    this.noteHere(endpoint, subject, deliveryId, dueAt);
  }

  /**
   * Writes the batch's notes, before its retry messages go out, so another process that
   * receives a later event of a waiting subject finds the earlier one. A failed write is logged
   * and fails no record: redoing the batch would not note the deliveries again (they are stored
   * already), and the subject's order then rests on this process's memory.
   */
  async write(): Promise<void> {
    const changes = this.changes.splice(0);
    if (changes.length === 0) return;
    try {
      await this.ledger.apply(changes, this.clock.now());
    } catch (error) {
      this.logger.error('noting waiting deliveries failed', {
        deliveries: changes.map((change) => change.deliveryId),
        error: String(error),
      });
    }
  }
}
