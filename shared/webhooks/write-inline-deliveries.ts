import type { DispatchLane } from '../publish/publisher.ts';
import { compactDelivery } from './delivered-at-once.ts';
import type { DeliveryOrigin, DeliveryTally } from './delivery-counter.ts';
import { afterDeliveryWrite, type FollowUpBatch } from './delivery-follow-up.ts';
import type {
  Attempt,
  DeliveredAtOnce,
  Delivery,
  DeliveryRecord,
  FanOutWrite,
  StoredEvent,
} from './store.ts';

/** A new delivery waiting for the batch's shared write. */
export interface StagedDelivery {
  delivery: Delivery;
  attempts: Attempt[] | undefined;
  /** Settles once it is listed under its subscription (written only after). */
  listed: Promise<void> | undefined;
  deferred: boolean;
  /** The lane whose line it was deferred from, for its turn at a slow endpoint (its message says so). */
  inLine: DispatchLane | undefined;
  /** The lane it was asked in: a bulk delivery's retry message keeps it (see messageLane). */
  lane: DispatchLane;
  /** The subject of the delivery's event (see subjectKey): its retry message carries it. */
  subject: string;
  recordIds: readonly string[];
  /** The stream and detection instant of the delivery's event, counted once it is written. */
  origin: DeliveryOrigin | undefined;
}

/** An event of the batch not stored before, waiting for the batch's shared write. */
export interface FreshEvent {
  event: StoredEvent;
  recordIds: readonly string[];
  listed: Promise<void>;
  /** Its stream and detection instant, counted once it is written (see DeliveryCounter). */
  origin: DeliveryOrigin | undefined;
}

/** What {@link writeInlineDeliveries} needs of a dispatch batch (DispatchBatch is one). */
export interface InlineWriteBatch extends FollowUpBatch {
  readonly stagedDeliveries: StagedDelivery[];
  readonly freshEvents: Map<string, FreshEvent>;
  readonly counts: DeliveryTally;
  /** Marks records failed and logs why. */
  fail(recordIds: readonly string[], message: string, error: unknown): void;
}

/**
 * Stores the batch's new events with the outcome of their first attempts, together
 * ({@link WebhookStore.putFanOuts}: a delivery that succeeded at once is folded into its event's
 * item, any other gets an item of its own), once their deliveries are listed under their
 * subscriptions; a missing delivery of an event stored before is created on its own. Then
 * schedules what follows each delivery: a retry message, a dead letter. Runs before the batch's
 * queue messages are sent and its records acknowledged, so a crash before it repeats the batch
 * (at-least-once). On failure the records fail.
 */
export async function writeInlineDeliveries(batch: InlineWriteBatch): Promise<void> {
  const staged = batch.stagedDeliveries.splice(0);
  const fresh = [...batch.freshEvents.values()];
  batch.freshEvents.clear();
  if (staged.length === 0 && fresh.length === 0) return;
  const byEvent = new Map(fresh.map(({ event }) => [event.id, [] as StagedDelivery[]]));
  const resumed: StagedDelivery[] = [];
  for (const entry of staged) {
    const own = byEvent.get(entry.delivery.eventId);
    if (own) own.push(entry);
    else resumed.push(entry);
  }
  const writes: FanOutWrite[] = fresh.map(({ event }) =>
    fanOutWrite(event, byEvent.get(event.id)!),
  );
  // A missing delivery that a concurrent batch created meanwhile is that batch's to follow up.
  const lost = new Set<StagedDelivery>();
  try {
    // Most share one listing (the batch's): each awaited once.
    await Promise.all(new Set([...staged, ...fresh].map((entry) => entry.listed)));
    await Promise.all([
      batch.deps.store.putFanOuts(writes),
      ...resumed.map(async (entry) => {
        const options = { attempts: entry.attempts };
        if (!(await batch.deps.store.createDelivery(entry.delivery, options))) lost.add(entry);
      }),
    ]);
  } catch (error) {
    batch.fail(
      [...fresh.flatMap((entry) => entry.recordIds), ...staged.flatMap((entry) => entry.recordIds)],
      'writing the events and deliveries failed',
      error,
    );
    return;
  }
  for (const { origin } of fresh) batch.counts.count(origin, 'events');
  for (const entry of staged) {
    if (lost.has(entry)) continue;
    batch.counts.count(entry.origin, 'created');
    if (entry.delivery.status === 'delivered') batch.counts.count(entry.origin, 'delivered');
    if (entry.delivery.status === 'dead') batch.counts.count(entry.origin, 'dead');
    if (entry.deferred) batch.deps.metrics.count('deferred');
    await afterDeliveryWrite(
      entry.delivery,
      batch,
      entry.recordIds,
      entry.subject,
      entry.inLine,
      entry.lane,
    );
  }
}

/** An event's write: its deliveries that succeeded at once folded in, the others on their own. */
function fanOutWrite(event: StoredEvent, deliveries: readonly StagedDelivery[]): FanOutWrite {
  const deliveredAtOnce: DeliveredAtOnce[] = [];
  const others: DeliveryRecord[] = [];
  for (const { delivery, attempts } of deliveries) {
    const record: DeliveryRecord = { delivery, attempts: attempts ?? [] };
    const compact = compactDelivery(record, event.storedAt);
    if (compact) deliveredAtOnce.push(compact);
    else others.push(record);
  }
  return { event, deliveredAtOnce, others };
}
