import type { PublishTargetName } from './publisher.ts';

/**
 * The metrics port of the publishers: what was published per event type, what failed,
 * and how full the batches were. Implementations must not throw.
 */
export interface PublishMetrics {
  /** `count` events of `eventType` were accepted by `target`. */
  recordPublished(target: PublishTargetName, eventType: string, count: number): void;
  /** `count` events of `eventType` were not published; `reason` is an error code. */
  recordFailed(target: PublishTargetName, eventType: string, count: number, reason: string): void;
  /** One request went to `target` carrying `entries` entries of `bytes` bytes in total. */
  recordBatch(target: PublishTargetName, entries: number, bytes: number): void;
  /** `entries` entries refused for a transient reason are being sent again. */
  recordRetried(target: PublishTargetName, entries: number): void;
  /** `count` events were not put on the bus because no rule there matched them. */
  recordUnmatched(target: PublishTargetName, count: number): void;
}

/** A metrics sink that records nothing (for callers that do not care). */
export const NO_PUBLISH_METRICS: PublishMetrics = {
  recordPublished: () => {},
  recordFailed: () => {},
  recordBatch: () => {},
  recordRetried: () => {},
  recordUnmatched: () => {},
};

/** One failure count, keyed by target, type and reason. */
export interface FailureCount {
  target: PublishTargetName;
  eventType: string;
  reason: string;
  count: number;
}

/**
 * In-memory counters, for `npm start` (the admin API can show them) and tests.
 * @example const metrics = new MemoryPublishMetrics(); metrics.publishedCount('sqs', 'customer.updated');
 */
export class MemoryPublishMetrics implements PublishMetrics {
  private readonly published = new Map<string, number>();
  private readonly failed = new Map<string, FailureCount>();
  private readonly batches: Array<{ target: PublishTargetName; entries: number; bytes: number }> =
    [];
  private retried = 0;
  private unmatched = 0;

  recordPublished(target: PublishTargetName, eventType: string, count: number): void {
    const key = `${target}\u0000${eventType}`;
    this.published.set(key, (this.published.get(key) ?? 0) + count);
  }

  recordFailed(target: PublishTargetName, eventType: string, count: number, reason: string): void {
    const key = `${target}\u0000${eventType}\u0000${reason}`;
    const entry = this.failed.get(key) ?? { target, eventType, reason, count: 0 };
    entry.count += count;
    this.failed.set(key, entry);
  }

  recordBatch(target: PublishTargetName, entries: number, bytes: number): void {
    this.batches.push({ target, entries, bytes });
  }

  recordRetried(_target: PublishTargetName, entries: number): void {
    this.retried += entries;
  }

  recordUnmatched(_target: PublishTargetName, count: number): void {
    this.unmatched += count;
  }

  /** Events no rule on the bus matched, so not put, over all targets. */
  unmatchedCount(): number {
    return this.unmatched;
  }

  /** Events of `eventType` (or of every type when omitted) published to `target`. */
  publishedCount(target: PublishTargetName, eventType?: string): number {
    let total = 0;
    for (const [key, count] of this.published) {
      const [keyTarget, keyType] = key.split('\u0000');
      if (keyTarget === target && (eventType === undefined || keyType === eventType))
        total += count;
    }
    return total;
  }

  /** Every failure count recorded so far. */
  failures(): FailureCount[] {
    return [...this.failed.values()].map((entry) => ({ ...entry }));
  }

  /** Entries per request sent to `target`, in sending order. */
  batchSizes(target: PublishTargetName): number[] {
    return this.batches.filter((batch) => batch.target === target).map((batch) => batch.entries);
  }

  /** Entries sent again after a transient refusal, over all targets. */
  retriedCount(): number {
    return this.retried;
  }
}
