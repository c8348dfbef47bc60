import { Duration } from 'aws-cdk-lib';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { BRIDGE_METRICS, STREAM_DIMENSION } from '../metric-names.ts';
import type { ChangeBridgeConfig } from '../props.ts';
import type { ChangeBridgeRuntime } from '../runtime.ts';
import type { ChangeBridgeState } from '../stateful.ts';
import { customMetric, FIVE_MINUTES, insightsQuery } from './bridge-metrics.ts';

/** What {@link createDashboard} draws. */
export interface BridgeDashboardProps {
  config: ChangeBridgeConfig;
  state: ChangeBridgeState;
  runtime: ChangeBridgeRuntime;
  /** The alarms its status widget shows, in this order. */
  alarms: Alarm[];
  /** Metrics the alarms are built on and the dashboard graphs too. */
  metrics: { pollFailures: IMetric; failureRate: IMetric; throttles: IMetric };
}

/**
 * The bridge's CloudWatch dashboard, as `Dashboard` under `scope`: alarm status, watermark age,
 * deliveries, the functions, the connector budget, the queues and the dead letters.
 */
export function createDashboard(scope: Construct, props: BridgeDashboardProps): Dashboard {
  const { config, state, runtime, metrics } = props;
  const dashboard = new Dashboard(scope, 'Dashboard', { defaultInterval: Duration.hours(3) });
  const functions = [...runtime.functions];
  const queues = [
    ['Poll jobs', state.pollJobQueue],
    ['Dispatch', state.dispatchQueue],
    ['Bulk dispatch', state.bulkDispatchQueue],
    ...(state.dispatchRetryQueue ? [['Dispatch retries', state.dispatchRetryQueue] as const] : []),
    ...(state.eventsQueue ? [['Events', state.eventsQueue] as const] : []),
  ] as const;
  const dlqs = [...state.deadLetterQueues];
  dashboard.addWidgets(
    new TextWidget({
      markdown: '# change-bridge\nPolling → SQS → webhooks; EventBridge for the rules on the bus',
      width: 24,
      height: 1,
    }),
    new AlarmStatusWidget({ title: 'Alarms', alarms: props.alarms, width: 24, height: 3 }),
  );
  dashboard.addWidgets(
    new GraphWidget({
      title: config.streamMetrics
        ? 'Watermark age: oldest, and the 20 oldest streams (s)'
        : 'Oldest watermark age (s)',
      left: [
        customMetric(config, BRIDGE_METRICS.oldestWatermarkAgeSeconds).with({
          statistic: 'Maximum',
          label: 'Oldest',
        }),
        // Only where the poller sends them per stream (streamMetrics).
        ...(config.streamMetrics
          ? [
              insightsQuery(
                config,
                '',
                ` GROUP BY ${STREAM_DIMENSION} ORDER BY MAX() DESC LIMIT 20`,
              ),
            ]
          : []),
      ],
      width: 12,
    }),
    new GraphWidget({
      title: 'Deliveries',
      left: [
        customMetric(config, BRIDGE_METRICS.deliveriesSucceeded).with({ label: 'Succeeded' }),
        customMetric(config, BRIDGE_METRICS.deliveriesFailed).with({ label: 'Failed' }),
      ],
      right: [metrics.failureRate],
      width: 12,
    }),
  );
  dashboard.addWidgets(
    new GraphWidget({
      title: 'Invocations',
      left: functions.map(([name, fn]) =>
        fn.metricInvocations({ label: name, period: FIVE_MINUTES }),
      ),
      width: 8,
    }),
    new GraphWidget({
      title: 'Errors and throttles',
      left: functions.map(([name, fn]) => fn.metricErrors({ label: name, period: FIVE_MINUTES })),
      right: [metrics.pollFailures, metrics.throttles],
      width: 8,
    }),
    new GraphWidget({
      title: 'Duration p99 (ms)',
      left: functions.map(([name, fn]) =>
        fn.metricDuration({ label: name, statistic: 'p99', period: FIVE_MINUTES }),
      ),
      width: 8,
    }),
  );
  dashboard.addWidgets(
    new GraphWidget({
      title: 'Connector requests',
      left: [
        customMetric(config, BRIDGE_METRICS.connectorRequests).with({ label: 'Requests' }),
        customMetric(config, BRIDGE_METRICS.connectorThrottled).with({ label: '429 answers' }),
      ],
      width: 12,
    }),
    new GraphWidget({
      title: 'Connector budget used, busiest token (%) and parked streams',
      left: [
        customMetric(config, BRIDGE_METRICS.connectorBudgetUsedPercent).with({
          label: 'Budget used (max %)',
          statistic: 'Maximum',
        }),
      ],
      right: [
        customMetric(config, BRIDGE_METRICS.streamsParked).with({
          label: 'Parked streams (max per job)',
          statistic: 'Maximum',
        }),
      ],
      leftYAxis: { min: 0, max: 100 },
      width: 12,
    }),
  );
  dashboard.addWidgets(
    new GraphWidget({
      title: 'Queue depth',
      left: queues.map(([name, queue]) =>
        queue.metricApproximateNumberOfMessagesVisible({ label: name }),
      ),
      right: queues.map(([name, queue]) =>
        queue.metricApproximateAgeOfOldestMessage({ label: `${name} oldest (s)` }),
      ),
      width: 12,
    }),
    new GraphWidget({
      title: 'Dead letters',
      left: dlqs.map(([name, queue]) =>
        queue.metricApproximateNumberOfMessagesVisible({ label: name, statistic: 'Maximum' }),
      ),
      width: 12,
    }),
  );
  return dashboard;
}
