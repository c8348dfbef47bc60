import { z } from 'zod';
import { eventStreamId } from '../changes/envelope.ts';

/**
 * What the dispatcher counts of the events of one stream detected at one instant: events fanned
 * out (new to the dispatcher), deliveries made of them (one per event and matching subscription),
 * and of those the ones delivered and dead-lettered. A delivery made and neither delivered nor
 * dead-lettered is still to be delivered.
 */
export const DeliveryCountsSchema = z.object({
  /**
   * Events fanned out to the subscriptions: once when new (write-inline-deliveries.ts), and again
   * at its new detection instant when a poll publishes it again (as the poller counts it
   * published; resume-fan-out.ts).
   */
  events: z.number().int().nonnegative(),
  /** Deliveries made of those events, one per event and matching subscription. */
  created: z.number().int().nonnegative(),
  /** Deliveries that succeeded. */
  delivered: z.number().int().nonnegative(),
  /** Deliveries dead-lettered (retries exhausted, refused for good, subscription disabled). */
  dead: z.number().int().nonnegative(),
});

/** Counts of a stream's events and their deliveries (see {@link DeliveryCountsSchema}). */
export type DeliveryCounts = z.infer<typeof DeliveryCountsSchema>;

/** One of the counts a batch tallies. */
export type DeliveryCountKind = keyof DeliveryCounts;

/** Counts of nothing. */
export const NO_DELIVERY_COUNTS: DeliveryCounts = Object.freeze({
  events: 0,
  created: 0,
  delivered: 0,
  dead: 0,
});

/**
 * Where an event counted for progress came from: its stream (`<connectionId>:<entityType>`) and
 * when it was detected (its `time`, epoch ms). A backfill counts the deliveries of its streams'
 * events detected since it started, so those of an earlier sync still queued are not its own.
 */
export interface DeliveryOrigin {
  streamId: string;
  detectedAt: number;
}

/**
 * The stream a delivered event came from (see {@link eventStreamId}): `<connectionId>:<entityType>`,
 * `undefined` for operational events. Pure.
 * @example deliveryStreamId({ source: 'connector/main', type: 'customer.created' }) // 'main:customer'
 */
export const deliveryStreamId = eventStreamId;

/**
 * The {@link DeliveryOrigin} of an event: its stream and its `time`; `undefined` for operational
 * events and for an event without a valid `time`. Pure.
 * @example deliveryOrigin({ source: 'connector/main', type: 'customer.created', time: '2026-01-01T00:00:00.000Z' }) // { streamId: 'main:customer', detectedAt: 1767225600000 }
 */
export function deliveryOrigin(event: {
  source?: string | undefined;
  type: string;
  time?: string | undefined;
}): DeliveryOrigin | undefined {
  const streamId = eventStreamId(event);
  const detectedAt = event.time === undefined ? Number.NaN : Date.parse(event.time);
  if (streamId === undefined || !Number.isFinite(detectedAt)) return undefined;
  return { streamId, detectedAt };
}

/** Counts per stream, then per detection instant (epoch ms): what a batch adds at its end. */
export type DeliveryTallies = ReadonlyMap<string, ReadonlyMap<number, Partial<DeliveryCounts>>>;

/** Which of a stream's events a reading sums: those detected in `[fromMs, untilMs)`. */
export interface DeliveryCountRange {
  streamId: string;
  /** Epoch ms, inclusive. */
  fromMs: number;
  /** Epoch ms, exclusive; no end when absent. */
  untilMs?: number | undefined;
}

/**
 * Events fanned out and their deliveries made, delivered and dead-lettered, counted per stream
 * and detection instant, for progress: a backfill reports those of its streams' events detected
 * since it started. The dispatcher tallies a batch's counts in memory and adds them with one
 * call when the batch ends (see `DispatchBatch.flush`), so the cost is one atomic increment per
 * stream and detection instant the batch handled (a page's events share theirs), never a write
 * per delivery. Counters only grow, so concurrent dispatchers never lose an update and a reader
 * needs no lock.
 *
 * Implementations: {@link MemoryDeliveryCounter}, `DynamoDbDeliveryCounter`; both pass
 * `test/webhooks/delivery-counter.test.ts`.
 */
export interface DeliveryCounter {
  /** Adds each count to its counter (counts of 0 or less are skipped). Not idempotent. */
  add(tallies: DeliveryTallies): Promise<void>;
  /**
   * Each range's sums, by stream id (a stream named twice: the last range); a stream never
   * counted reads {@link NO_DELIVERY_COUNTS}.
   */
  read(ranges: readonly DeliveryCountRange[]): Promise<Map<string, DeliveryCounts>>;
}

/** `a` and `b` added up. Pure. */
export function addDeliveryCounts(a: DeliveryCounts, b: Partial<DeliveryCounts>): DeliveryCounts {
  return {
    events: a.events + (b.events ?? 0),
    created: a.created + (b.created ?? 0),
    delivered: a.delivered + (b.delivered ?? 0),
    dead: a.dead + (b.dead ?? 0),
  };
}

/**
 * Counts in memory, to be added later with {@link DeliveryCounter.add}: a batch's tally.
 * @example tally.count(origin, 'delivered'); await counter.add(tally.take())
 */
export class DeliveryTally {
  private counts = new Map<string, Map<number, DeliveryCounts>>();

  /** Counts one `kind` of `origin` (`undefined`: not a stream's event, ignored). */
  count(origin: DeliveryOrigin | undefined, kind: DeliveryCountKind): void {
    if (origin === undefined) return;
    let byInstant = this.counts.get(origin.streamId);
    if (!byInstant) {
      byInstant = new Map();
      this.counts.set(origin.streamId, byInstant);
    }
    const before = byInstant.get(origin.detectedAt) ?? NO_DELIVERY_COUNTS;
    byInstant.set(origin.detectedAt, { ...before, [kind]: before[kind] + 1 });
  }

  /** The counts so far, leaving the tally empty. */
  take(): Map<string, Map<number, DeliveryCounts>> {
    const taken = this.counts;
    this.counts = new Map();
    return taken;
  }
}

/** Whether `at` lies in `range`. Pure. */
export function inCountRange(range: DeliveryCountRange, at: number): boolean {
  return at >= range.fromMs && (range.untilMs === undefined || at < range.untilMs);
}

/** Counters in memory: tests and runs without a table. */
export class MemoryDeliveryCounter implements DeliveryCounter {
  private readonly counters = new Map<string, Map<number, DeliveryCounts>>();

  async add(tallies: DeliveryTallies): Promise<void> {
    for (const [streamId, byInstant] of tallies) {
      let kept = this.counters.get(streamId);
      if (!kept) {
        kept = new Map();
        this.counters.set(streamId, kept);
      }
      for (const [at, counts] of byInstant) {
        const positive = Object.fromEntries(
          Object.entries(counts).filter(([, count]) => (count ?? 0) > 0),
        );
        kept.set(at, addDeliveryCounts(kept.get(at) ?? NO_DELIVERY_COUNTS, positive));
      }
    }
  }

  async read(ranges: readonly DeliveryCountRange[]): Promise<Map<string, DeliveryCounts>> {
    const sums = new Map<string, DeliveryCounts>();
    for (const range of ranges) {
      let sum = NO_DELIVERY_COUNTS;
      for (const [at, counts] of this.counters.get(range.streamId) ?? []) {
        if (inCountRange(range, at)) sum = addDeliveryCounts(sum, counts);
      }
      sums.set(range.streamId, sum);
    }
    return sums;
  }
}
