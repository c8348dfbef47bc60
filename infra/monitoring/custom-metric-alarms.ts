import { ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { UNFINISHED_PUBLISH_REASONS } from '../../shared/publish/batch-delivery.ts';
import { BRIDGE_METRICS, SERVICE_DIMENSION } from '../metric-names.ts';
import type { ChangeBridgeConfig } from '../props.ts';
import type { AddAlarm } from './add-alarm.ts';
import { customMetric, FIVE_MINUTES } from './bridge-metrics.ts';

/**
 * The alarms on the metrics the handlers publish (`WatermarkAge`, `DeliveryFailureRate`,
 * `MalformedDispatchMessages`, `RecordsSetAside`, `EventsRefused`, `StreamsParked`,
 * `ConnectorThrottled`), in that order. Returns the delivery failure rate, which the dashboard
 * graphs too.
 */
export function addCustomMetricAlarms(
  addAlarm: AddAlarm,
  config: ChangeBridgeConfig,
): MathExpression {
  // The oldest age each poll job sends, not a Metrics Insights query over the per-stream
  // metrics: a query reads at most 10,000 metrics (769 properties of 13 streams), so beyond
  // that a stalled stream could be among those it never read.
  const watermarkAge = customMetric(config, BRIDGE_METRICS.oldestWatermarkAgeSeconds).with({
    statistic: 'Maximum',
  });
  addAlarm('WatermarkAge', {
    description: `A stream's watermark is older than ${config.watermarkAgeAlarmSeconds} s: it is not advancing.`,
    metric: watermarkAge,
    threshold: config.watermarkAgeAlarmSeconds,
    evaluationPeriods: 2,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
  });

  const failureRate = new MathExpression({
    label: 'Delivery failure rate (%)',
    expression:
      'IF(FILL(ok, 0) + FILL(failed, 0) > 0, 100 * FILL(failed, 0) / (FILL(ok, 0) + FILL(failed, 0)), 0)',
    usingMetrics: {
      ok: customMetric(config, BRIDGE_METRICS.deliveriesSucceeded),
      failed: customMetric(config, BRIDGE_METRICS.deliveriesFailed),
    },
    period: FIVE_MINUTES,
  });
  addAlarm('DeliveryFailureRate', {
    description: `More than ${config.deliveryFailureAlarmPercent}% of webhook delivery attempts fail.`,
    metric: failureRate,
    threshold: config.deliveryFailureAlarmPercent,
    evaluationPeriods: 3,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
  });

  // A message that is not an event is dropped (redriving it could not help): someone sends
  // to the dispatch queue what the bridge did not write, or a version mismatch. Say so at once.
  addAlarm('MalformedDispatchMessages', {
    description:
      'The dispatcher dropped dispatch queue messages that were not events: see its WARN logs.',
    metric: customMetric(config, BRIDGE_METRICS.dispatchMessagesMalformed),
    threshold: 1,
    evaluationPeriods: 1,
  });

  // A record that broke its schema was set aside: its change was not published, and no later
  // poll publishes it unless the record changes again (README: recover with a backfill).
  addAlarm('RecordsSetAside', {
    description:
      'Polls set aside records that broke their schema, unpublished: see the poller WARN logs and GET /streams.',
    metric: customMetric(config, BRIDGE_METRICS.recordsSetAside),
    threshold: 1,
    evaluationPeriods: 1,
  });

  // An event refused for good (too large even thin, or malformed for the target) is not
  // published and never will be: the stream goes on without it, so someone must look at once.
  // Events left unpublished by a publish that failed are published again when its job repeats.
  const { metricsNamespace, serviceName } = config;
  const unfinished = UNFINISHED_PUBLISH_REASONS.map((reason) => ` AND reason != '${reason}'`);
  addAlarm('EventsRefused', {
    description:
      'Events were refused for good by their target (EventTooLarge, ...) and not published: see the ERROR logs "not published".',
    metric: new MathExpression({
      label: 'Events refused for good',
      expression:
        `SELECT SUM(${BRIDGE_METRICS.eventsFailed}) FROM "${metricsNamespace}" ` +
        `WHERE ${SERVICE_DIMENSION} = '${serviceName}'${unfinished.join('')}`,
      usingMetrics: {},
      period: FIVE_MINUTES,
    }),
    threshold: 1,
    evaluationPeriods: 1,
  });

  // A stream parked by an authorization error makes no request and fails no more: the poll
  // failures count it once, and a snapshot stream has no watermark to age. Its jobs count it
  // each time it comes due (and count zero once none is), so this lasts while one is parked.
  addAlarm('StreamsParked', {
    description:
      'Streams are parked: the connector refused their connection credentials (401/403). Store working tokens (or disable the connection); GET /streams names them.',
    metric: customMetric(config, BRIDGE_METRICS.streamsParked),
    threshold: 1,
    evaluationPeriods: 1,
    // Jobs come at the streams' interval, which may be longer than a period: keep the state.
    treatMissingData: TreatMissingData.IGNORE,
  });

  // The shared budget (with its margin) keeps every token under the server's 200 requests per
  // 30 s: a 429 means something else spends the token too, or the margin is too thin. Polls
  // wait it out (Retry-After), so one is no incident; 429s in three periods in a row are.
  addAlarm('ConnectorThrottled', {
    description:
      'The Connector API keeps answering 429: a token is spent beyond the bridge budget (another client uses it too?); polls wait for Retry-After meanwhile.',
    metric: customMetric(config, BRIDGE_METRICS.connectorThrottled),
    threshold: 1,
    evaluationPeriods: 3,
  });
  return failureRate;
}
