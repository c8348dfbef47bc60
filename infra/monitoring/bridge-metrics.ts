import { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { BRIDGE_METRICS, SERVICE_DIMENSION } from '../metric-names.ts';
import type { ChangeBridgeConfig } from '../props.ts';
import type { ChangeBridgeRuntime } from '../runtime.ts';

/** The period of the bridge's alarms and graphs, unless one says otherwise. */
export const FIVE_MINUTES = Duration.minutes(5);

/** A custom metric the handlers publish, with the `service` dimension Powertools adds. */
export function customMetric(config: ChangeBridgeConfig, metricName: string): Metric {
  return new Metric({
    namespace: config.metricsNamespace,
    metricName,
    dimensionsMap: { [SERVICE_DIMENSION]: config.serviceName },
    statistic: 'Sum',
    period: FIVE_MINUTES,
  });
}

/**
 * The watermark age per stream, as a CloudWatch Metrics Insights query (`groupBy` splits it per
 * stream): for the dashboard only, since a query reads at most 10,000 metrics and returns at
 * most 500 series.
 */
export function insightsQuery(
  config: ChangeBridgeConfig,
  label: string,
  groupBy: string,
): MathExpression {
  const { metricsNamespace, serviceName } = config;
  const query =
    `SELECT MAX(${BRIDGE_METRICS.watermarkAgeSeconds}) FROM "${metricsNamespace}" ` +
    `WHERE ${SERVICE_DIMENSION} = '${serviceName}'${groupBy}`;
  return new MathExpression({ label, expression: query, usingMetrics: {}, period: FIVE_MINUTES });
}

/** The throttles of every bridge function, summed per 5 minutes. */
export function lambdaThrottles(runtime: ChangeBridgeRuntime): MathExpression {
  return new MathExpression({
    label: 'Lambda throttles',
    expression: [...runtime.functions.keys()].map((_, i) => `FILL(t${i}, 0)`).join(' + '),
    usingMetrics: Object.fromEntries(
      [...runtime.functions.values()].map((fn, i) => [
        `t${i}`,
        fn.metricThrottles({ period: FIVE_MINUTES }),
      ]),
    ),
    period: FIVE_MINUTES,
  });
}
