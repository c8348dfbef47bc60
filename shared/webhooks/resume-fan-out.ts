import { type DeliveryOrigin, deliveryOrigin } from './delivery-counter.ts';
import type { DispatchBatch } from './dispatch-batch.ts';
import { subjectKey } from './event-subject.ts';
import type { IncomingEvent, InlineDelivery } from './inline-delivery.ts';
import { deliveryMessage, eventOfBody } from './messages.ts';
import type { Delivery, StoredEventRecord } from './store.ts';

/**
 * The fan-out of an event stored before: deliveries it recorded are left alone (pending ones
 * re-enqueued), missing ones are planned.
 */
export async function resumeFanOut(
  item: IncomingEvent,
  deliveries: readonly Delivery[],
  record: StoredEventRecord,
  batch: DispatchBatch,
): Promise<InlineDelivery[]> {
  const { store } = batch.deps;
  const deliveredAtOnce = new Set(record.deliveredAtOnce.map((d) => d.id));
  // Its deliveries count at the detection instant of the body stored and sent, as their retries do.
  let storedOrigin: { origin: DeliveryOrigin | undefined } | undefined;
  const originOfStored = () => {
    const stored = eventOfBody(record.event.body);
    storedOrigin ??= { origin: stored && deliveryOrigin(stored) };
    return storedOrigin.origin;
  };
  try {
    const missing: InlineDelivery[] = [];
    for (const delivery of deliveries) {
      if (deliveredAtOnce.has(delivery.id)) continue;
      const existing = await store.getDelivery(delivery.id);
      if (!existing) {
        missing.push({
          delivery,
          subject: subjectKey(item.event),
          body: record.event.body,
          recordIds: item.recordIds,
          origin: originOfStored(),
          ...(item.askedLive ? { askedLive: true as const } : {}),
        });
      } else if (existing.status === 'pending') {
        batch.enqueue(
          deliveryMessage(existing, subjectKey(item.event)),
          existing.nextAttemptAt,
          item.recordIds,
        );
      }
    }
    // Published again (a poll whose save lost to a reset or a backfill finds the change again,
    // under its id, at a later instant): counted as handed on at that instant too, as the
    // poller counts it published again, so a backfill waits for no event that never comes.
    batch.counts.count(deliveryOrigin(item.event), 'events');
    return missing;
  } catch (error) {
    batch.fail(item.recordIds, 'resuming a fan-out failed', error);
    return [];
  }
}
