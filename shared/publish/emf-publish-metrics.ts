import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { PublishMetrics } from './publish-metrics.ts';
import type { PublishTargetName } from './publisher.ts';

/**
 * {@link PublishMetrics} as CloudWatch Embedded Metric Format through Powertools, for
 * Lambda. Counts per event type go out at once as single metrics with `target` and
 * `eventType` dimensions (`EventsPublished`, `EventsFailed` with `reason`); batch figures
 * (`PublishBatchEntries`, `PublishBatchBytes`, `PublishRetriedEntries`) and
 * `EventsUnmatched` (not put on the bus: no rule there matched them) are buffered in
 * `metrics` and leave with the handler's `publishStoredMetrics()`.
 * @example const metrics = new EmfPublishMetrics(new Metrics({ namespace: 'ChangeBridge', serviceName: 'poller' }));
 */
export class EmfPublishMetrics implements PublishMetrics {
  private readonly metrics: Metrics;

  constructor(metrics: Metrics) {
    this.metrics = metrics;
  }

  recordPublished(target: PublishTargetName, eventType: string, count: number): void {
    this.metrics
      .singleMetric()
      .addDimensions({ target, eventType })
      .addMetric('EventsPublished', MetricUnit.Count, count);
  }

  recordFailed(target: PublishTargetName, eventType: string, count: number, reason: string): void {
    this.metrics
      .singleMetric()
      .addDimensions({ target, eventType, reason })
      .addMetric('EventsFailed', MetricUnit.Count, count);
  }

  recordBatch(_target: PublishTargetName, entries: number, bytes: number): void {
    this.metrics.addMetric('PublishBatchEntries', MetricUnit.Count, entries);
    this.metrics.addMetric('PublishBatchBytes', MetricUnit.Bytes, bytes);
  }

  recordRetried(_target: PublishTargetName, entries: number): void {
    this.metrics.addMetric('PublishRetriedEntries', MetricUnit.Count, entries);
  }

  recordUnmatched(_target: PublishTargetName, count: number): void {
    this.metrics.addMetric('EventsUnmatched', MetricUnit.Count, count);
  }
}
