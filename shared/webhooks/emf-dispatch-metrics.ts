import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DispatchMetricName, DispatchMetrics } from './metrics.ts';

/**
 * CloudWatch metric names of the dispatcher's counters. `DeliveriesSucceeded` and
 * `DeliveriesFailed` are what the delivery-failure-rate alarm reads (infra/metric-names.ts).
 */
export const DISPATCH_METRIC_NAMES: Readonly<Record<DispatchMetricName, string>> = {
  delivered: 'DeliveriesSucceeded',
  failed: 'DeliveriesFailed',
  retried: 'DeliveriesRetried',
  deadLettered: 'DeliveriesDeadLettered',
  deferred: 'DeliveriesDeferred',
  malformed: 'DispatchMessagesMalformed',
};

/**
 * {@link DispatchMetrics} as Embedded Metric Format through Powertools, for the Lambda
 * dispatcher; the handler flushes with `publishStoredMetrics()` after each batch.
 * @example new EmfDispatchMetrics(new Metrics({ namespace: 'ChangeBridge', serviceName: 'dispatcher' }))
 */
export class EmfDispatchMetrics implements DispatchMetrics {
  constructor(private readonly metrics: Metrics) {}

  count(name: DispatchMetricName, value = 1): void {
    this.metrics.addMetric(DISPATCH_METRIC_NAMES[name], MetricUnit.Count, value);
  }
}
