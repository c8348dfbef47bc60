import type { BatchWaiting } from './batch-waiting.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { type DeliveryMessage, deliveryMessage } from './messages.ts';
import type { Delivery } from './store.ts';
import type { LongOverdue } from './waiting-deliveries.ts';

/** Waiting deliveries long overdue read from the store at once (see OverdueWaitingChecks.checkLongOverdue). */
const LONG_OVERDUE_READS_AT_ONCE = 100;

/** What {@link OverdueWaitingChecks} reads, notes and logs with. */
export type OverdueWaitingChecksDeps = Pick<
  DispatcherDeps,
  'store' | 'clock' | 'scheduler' | 'logger'
>;

/** Queues a delivery's message for the batch's flush, visible at `dueAt` (see DispatchBatch.enqueue). */
export type EnqueueMessage = (
  message: DeliveryMessage,
  dueAt: number,
  recordIds: readonly string[],
) => void;

/**
 * A dispatch batch's checks of waiting deliveries overdue by more than 15 minutes: lateness
 * alone does not settle them (a backlogged queue may hand a retry over any time late), so the
 * store is asked; one still pending is enqueued again, one settled or gone is forgotten.
 */
export class OverdueWaitingChecks {
  /**
   * @param waiting The batch's view of the waiting ledger, when the process has one.
   * @param enqueue Queues a message re-sent for a delivery still pending.
   */
  constructor(
    private readonly deps: OverdueWaitingChecksDeps,
    private readonly waiting: BatchWaiting | undefined,
    private readonly enqueue: EnqueueMessage,
  ) {}

  /**
   * Asks the store about the deliveries of `subject` waiting ahead of `deliveryId` at the
   * endpoint that are overdue by more than 15 minutes: lateness alone does not settle them (a
   * backlogged queue may hand a retry over any time late). See {@link resendIfPending}.
   */
  async checkOverdue(endpoint: string, subject: string, deliveryId: string): Promise<void> {
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
  async checkLongOverdue(): Promise<void> {
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
    this.deps.scheduler.noteWaiting(endpoint, subject, deliveryId, now, delivery.lane);
    this.waiting?.note({ ...delivery, nextAttemptAt: now }, subject, true);
    this.enqueue(deliveryMessage(delivery, subject), now, []);
  }
}
