import { fanOutDeliveryId } from './delivered-at-once.ts';
import { newDelivery } from './deliveries.ts';
import { deliveryOrigin } from './delivery-counter.ts';
import type { DispatchBatch } from './dispatch-batch.ts';
import { subjectKey } from './event-subject.ts';
import type { IncomingEvent, InlineDelivery } from './inline-delivery.ts';
import { resumeFanOut } from './resume-fan-out.ts';
import type { Delivery, StoredEvent, StoredEventRecord } from './store.ts';
import { matchesSubscription } from './subscription.ts';

/**
 * Plans the batch's events: one inline delivery per (new event, enabled matching
 * subscription). Events are looked up in one read: a new event is stored only after its first
 * attempts, once, with their outcome folded into its item ({@link writeInlineDeliveries}), and
 * it is listed, and its deliveries under their subscriptions, in shared writes meanwhile. An event stored before (SQS redelivered the message, or the poller
 * published it again) is idempotent: each delivery recorded is left alone (a pending one gets a
 * message again, in case the earlier run stopped before sending it) and only missing ones are
 * planned, with the stored body. Records whose storage failed are marked failed in `batch`.
 */
export async function planFanOut(
  incoming: readonly IncomingEvent[],
  batch: DispatchBatch,
): Promise<InlineDelivery[]> {
  const { store, clock } = batch.deps;
  const now = clock.now();
  const allRecordIds = incoming.flatMap((item) => item.recordIds);
  let subscriptions: Awaited<ReturnType<DispatchBatch['subscriptions']>>;
  try {
    subscriptions = await batch.subscriptions();
  } catch (error) {
    batch.fail(allRecordIds, 'subscription lookup failed', error);
    return [];
  }
  // Once per batch, not per event.
  const enabled = [...subscriptions.values()].filter((s) => s.enabled);
  const planned = incoming.map((item) => {
    const stored: StoredEvent = {
      id: item.event.id,
      type: item.event.type,
      storedAt: now,
      body: item.body,
    };
    const deliveries: Delivery[] = [];
    for (const s of enabled) {
      if (matchesSubscription(s, item.event))
        deliveries.push(newDelivery(fanOutDeliveryId(stored.id, s.id), stored.id, s.id, now));
    }
    // Once per event, not per delivery.
    const subject = subjectKey(item.event);
    const origin = deliveryOrigin(item.event);
    return { item, stored, deliveries, subject, origin };
  });
  let known: Map<string, StoredEventRecord>;
  try {
    known = await store.getEventRecords(planned.map((p) => p.stored.id));
  } catch (error) {
    batch.fail(allRecordIds, 'reading the events failed', error);
    return [];
  }
  const fresh = planned.filter((p) => !known.has(p.stored.id));
  const repeated = planned.filter((p) => known.has(p.stored.id));
  // Only new events are listed, at their `storedAt`: an event published again keeps its one
  // place in the list (a second listing would put it first with its old `storedAt`, out of
  // order for `GET /feed?since=` and `events list`). Listed before stored (writeInlineDeliveries
  // awaits this): an event is never stored unlisted.
  let listed: Promise<void> | undefined;
  if (fresh.length > 0) {
    listed = Promise.all([
      store.indexEvents(fresh.map((p) => p.stored)),
      store.indexDeliveries(fresh.flatMap((p) => p.deliveries)),
    ]).then(() => undefined);
    // Awaited before the batch's writes; this keeps an unawaited failure from going unhandled.
    listed.catch(() => undefined);
    for (const p of fresh)
      batch.freshEvents.set(p.stored.id, {
        event: p.stored,
        recordIds: p.item.recordIds,
        listed,
        origin: p.origin,
      });
  }
  const inline: InlineDelivery[] = [];
  for (const p of fresh) {
    for (const delivery of p.deliveries) {
      inline.push({
        delivery,
        subject: p.subject,
        body: p.item.body,
        recordIds: p.item.recordIds,
        origin: p.origin,
        listed,
        ...(p.item.askedLive ? { askedLive: true as const } : {}),
      });
    }
  }
  const resumed = await Promise.all(
    repeated.map((p) => resumeFanOut(p.item, p.deliveries, known.get(p.stored.id)!, batch)),
  );
  return [...inline, ...resumed.flat()];
}
