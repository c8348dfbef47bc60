/** Counters the dispatcher keeps. */
export type DispatchMetricName =
  | 'delivered'
  | 'failed'
  | 'retried'
  | 'deadLettered'
  | 'deferred'
  | 'malformed';

/** A tiny metrics port (the lead wires EMF / Powertools behind it). */
export interface DispatchMetrics {
  count(name: DispatchMetricName, value?: number): void;
}

/** Counts in memory; also the default when nothing else is wired. */
export class CountingMetrics implements DispatchMetrics {
  readonly counts: Record<DispatchMetricName, number> = {
    delivered: 0,
    failed: 0,
    retried: 0,
    deadLettered: 0,
    deferred: 0,
    malformed: 0,
  };

  count(name: DispatchMetricName, value = 1): void {
    this.counts[name] += value;
  }
}
