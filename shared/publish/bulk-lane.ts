import { z } from 'zod';
import type { Clock } from '../clock.ts';

/**
 * A stream whose bulk events have not moved for this long is taken as drained: one that went
 * to the bulk queue's dead-letter queue (or was dropped as malformed) is never counted as
 * handled, and would otherwise keep its stream's live events in the bulk lane for good.
 */
export const BULK_LANE_STALL_MS = 15 * 60_000;

/** One stream's bulk events: queued and handled so far, and when either last moved (epoch ms). */
export const BulkLaneCountSchema = z.object({
  queued: z.number().int().nonnegative(),
  handled: z.number().int().nonnegative(),
  movedAt: z.number(),
});

/** One stream's bulk events (see {@link BulkLaneCountSchema}). */
export type BulkLaneCount = z.infer<typeof BulkLaneCountSchema>;

/**
 * Whether a stream still has bulk events on their way at `now`: more queued than handled, and
 * the count moved within {@link BULK_LANE_STALL_MS}. Pure.
 * @example isBulkPending({ queued: 3, handled: 2, movedAt: 0 }, 1_000) === true
 */
export function isBulkPending(count: BulkLaneCount | undefined, now: number): boolean {
  return (
    count !== undefined && count.queued > count.handled && now - count.movedAt < BULK_LANE_STALL_MS
  );
}

/**
 * Where the AWS deployment counts, per stream, the events sent to the bulk dispatch queue and
 * those the dispatcher has handled from it: while a stream has some on their way, its live
 * events take the bulk lane too, so none overtakes an earlier event of its subject. Counters
 * only grow (atomic additions), so pollers and dispatchers never lose an update.
 */
export interface BulkLaneLedger {
  /** Adds events about to be sent to the bulk lane, per stream (before they are sent). */
  queued(counts: ReadonlyMap<string, number>): Promise<void>;
  /** Adds bulk events handled (or refused for good, never to be handled), per stream. */
  handled(counts: ReadonlyMap<string, number>): Promise<void>;
  /** The streams among `streamIds` with bulk events still on their way (strongly consistent). */
  pending(streamIds: readonly string[]): Promise<Set<string>>;
}

/** {@link BulkLaneLedger} in memory: the contract tests' reference. */
export class MemoryBulkLaneLedger implements BulkLaneLedger {
  private readonly counts = new Map<string, BulkLaneCount>();

  constructor(private readonly clock: Clock) {}

  async queued(counts: ReadonlyMap<string, number>): Promise<void> {
    this.add(counts, 'queued');
  }

  async handled(counts: ReadonlyMap<string, number>): Promise<void> {
    this.add(counts, 'handled');
  }

  async pending(streamIds: readonly string[]): Promise<Set<string>> {
    const now = this.clock.now();
    return new Set(streamIds.filter((id) => isBulkPending(this.counts.get(id), now)));
  }

  private add(counts: ReadonlyMap<string, number>, field: 'queued' | 'handled'): void {
    for (const [streamId, count] of counts) {
      if (count <= 0) continue;
      const current = this.counts.get(streamId) ?? { queued: 0, handled: 0, movedAt: 0 };
      this.counts.set(streamId, {
        ...current,
        [field]: current[field] + count,
        movedAt: this.clock.now(),
      });
    }
  }
}

/** Counts of events per stream (events of no stream are left out). Pure. */
export function countByStream<E>(
  events: readonly E[],
  streamOf: (event: E) => string | undefined,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of events) {
    const streamId = streamOf(event);
    if (streamId !== undefined) counts.set(streamId, (counts.get(streamId) ?? 0) + 1);
  }
  return counts;
}
