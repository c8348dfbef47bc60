import type { DeliveryMessage } from './messages.ts';
import type { DeliveryQueue, QueuedDelivery } from './queue.ts';

/**
 * A dispatch queue of two: delivery messages of bulk work (`lane: 'bulk'`: a backfill's
 * retries, deferrals and recoveries, see DeliveryMessageSchema.lane) go to `bulk`, every other
 * to `live`. The local run consumes each with its own budget of messages in memory, so a
 * backfill's deliveries waiting at a paused or slow endpoint never fill the live lane's and hold
 * live changes in the queue behind them.
 * @example new LaneRoutingDeliveryQueue(liveQueue, bulkDeliveriesQueue)
 */
export class LaneRoutingDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly live: DeliveryQueue,
    private readonly bulk: DeliveryQueue,
  ) {}

  send(message: DeliveryMessage, delaySeconds: number): Promise<void> {
    return this.queueOf(message).send(message, delaySeconds);
  }

  async sendBatch(entries: readonly QueuedDelivery[]): Promise<number[]> {
    const live: number[] = [];
    const bulk: number[] = [];
    entries.forEach((entry, index) => {
      (this.queueOf(entry.message) === this.bulk ? bulk : live).push(index);
    });
    const [liveFailed, bulkFailed] = await Promise.all(
      [
        { queue: this.live, indexes: live },
        { queue: this.bulk, indexes: bulk },
      ].map(async ({ queue, indexes }) => {
        if (indexes.length === 0) return [];
        const failed = await queue.sendBatch(indexes.map((index) => entries[index]!));
        return failed.map((at) => indexes[at]!);
      }),
    );
    return [...liveFailed!, ...bulkFailed!].sort((a, b) => a - b);
  }

  private queueOf(message: DeliveryMessage): DeliveryQueue {
    return message.lane === 'bulk' ? this.bulk : this.live;
  }
}
