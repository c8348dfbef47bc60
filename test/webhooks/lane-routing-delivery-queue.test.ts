import { describe, expect, it } from 'vitest';
import { LaneRoutingDeliveryQueue } from '../../shared/webhooks/lane-routing-delivery-queue.ts';
import { type DeliveryMessage, deliveryMessage } from '../../shared/webhooks/messages.ts';
import type { DeliveryQueue, QueuedDelivery } from '../../shared/webhooks/queue.ts';

/** A queue that keeps what it is sent and refuses the deliveries named in `refused`. */
function keepingQueue(refused: ReadonlySet<string> = new Set()) {
  const sent: DeliveryMessage[] = [];
  const queue: DeliveryQueue = {
    async send(message) {
      sent.push(message);
    },
    async sendBatch(entries) {
      const failed: number[] = [];
      entries.forEach((entry, index) => {
        if (refused.has(entry.message.deliveryId)) failed.push(index);
        else sent.push(entry.message);
      });
      return failed;
    },
  };
  return { queue, ids: () => sent.map((message) => message.deliveryId) };
}

const entry = (id: string, lane?: 'live' | 'bulk'): QueuedDelivery => ({
  message: deliveryMessage({ id, subscriptionId: 's1' }, undefined, lane),
  delaySeconds: 0,
});

describe('LaneRoutingDeliveryQueue', () => {
  it('sends bulk work’s delivery messages to the bulk queue and every other to the live one', async () => {
    const live = keepingQueue();
    const bulk = keepingQueue();
    const queue = new LaneRoutingDeliveryQueue(live.queue, bulk.queue);
    await queue.send(entry('d1', 'bulk').message, 0);
    await queue.send(entry('d2').message, 0);
    expect(
      await queue.sendBatch([
        entry('d3'),
        entry('d4', 'bulk'),
        entry('d5', 'live'),
        entry('d6', 'bulk'),
      ]),
    ).toEqual([]);
    expect(live.ids()).toEqual(['d2', 'd3', 'd5']);
    expect(bulk.ids()).toEqual(['d1', 'd4', 'd6']);
  });

  it('names the entries either queue refused by their place in the whole batch', async () => {
    const queue = new LaneRoutingDeliveryQueue(
      keepingQueue(new Set(['d3'])).queue,
      keepingQueue(new Set(['d2', 'd4'])).queue,
    );
    const failed = await queue.sendBatch([
      entry('d1'),
      entry('d2', 'bulk'),
      entry('d3'),
      entry('d4', 'bulk'),
    ]);
    expect(failed).toEqual([1, 2, 3]);
  });
});
