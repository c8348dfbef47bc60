import { eventStreamId } from '../changes/envelope.ts';

/**
 * Succeeded deliveries counted per stream (`<connectionId>:<entityType>`), for progress: a
 * backfill reports the webhooks delivered for its streams as the difference between two
 * readings. The dispatcher tallies a batch's successes in memory and adds them with one call
 * when the batch ends (see `DispatchBatch.flush`), so the cost is one atomic increment per
 * stream the batch delivered for (a batch mostly holds one stream's events), never a write
 * per delivery. Counters only grow, so concurrent dispatchers never lose an update and a
 * reader needs no lock.
 *
 * Implementations: {@link MemoryDeliveryCounter}, `DynamoDbDeliveryCounter`; both pass
 * `test/webhooks/delivery-counter.test.ts`.
 */
export interface DeliveryCounter {
  /** Adds each count to its stream's counter (counts of 0 or less are skipped). Not idempotent. */
  add(counts: ReadonlyMap<string, number>): Promise<void>;
  /** The current counter of each stream; a stream never counted reads 0. */
  read(streamIds: readonly string[]): Promise<Map<string, number>>;
}

/**
 * The stream a delivered event came from (see {@link eventStreamId}): `<connectionId>:<entityType>`,
 * `undefined` for operational events. Pure.
 * @example deliveryStreamId({ source: 'connector/main', type: 'customer.created' }) // 'main:customer'
 */
export const deliveryStreamId = eventStreamId;

/**
 * Counts in memory, to be added later with {@link DeliveryCounter.add}: a batch's tally.
 * @example tally.count('main:customer'); await counter.add(tally.take())
 */
export class DeliveryTally {
  private counts = new Map<string, number>();

  /** Counts one succeeded delivery of `streamId` (`undefined`: not a stream's event, ignored). */
  count(streamId: string | undefined): void {
    if (streamId === undefined) return;
    this.counts.set(streamId, (this.counts.get(streamId) ?? 0) + 1);
  }

  /** The counts so far, leaving the tally empty. */
  take(): Map<string, number> {
    const taken = this.counts;
    this.counts = new Map();
    return taken;
  }
}

/** Counters in memory: tests and runs without a table. */
export class MemoryDeliveryCounter implements DeliveryCounter {
  private readonly counters = new Map<string, number>();

  async add(counts: ReadonlyMap<string, number>): Promise<void> {
    for (const [streamId, count] of counts) {
      if (count > 0) this.counters.set(streamId, (this.counters.get(streamId) ?? 0) + count);
    }
  }

  async read(streamIds: readonly string[]): Promise<Map<string, number>> {
    return new Map(streamIds.map((id) => [id, this.counters.get(id) ?? 0]));
  }
}
