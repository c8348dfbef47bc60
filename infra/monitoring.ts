import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { parseDuration } from '../shared/duration.ts';
import { plannerLookaheadMs } from '../shared/polling/enqueue-poll-jobs.ts';
import { UNFINISHED_PUBLISH_REASONS } from '../shared/publish/batch-delivery.ts';
import { dispatchAgeAlarmSeconds } from './dispatch-age-alarm.ts';
import { BRIDGE_METRICS, SERVICE_DIMENSION, STREAM_DIMENSION } from './metric-names.ts';
import { type ChangeBridgeConfig, plannerRateText } from './props.ts';
import type { ChangeBridgeRuntime } from './runtime.ts';
import { type ChangeBridgeState, VISIBILITY_TIMEOUT_FACTOR } from './stateful.ts';

const FIVE_MINUTES = Duration.minutes(5);

/**
 * The age (s) of the oldest poll job past which the `PollJobAge` alarm fires: the planner's
 * lookahead (a job's longest delay) plus the poll job queue's visibility timeout (a failed
 * attempt's wait for its retry). 780 s with the defaults (1-minute polling, 120 s poller).
 */
export function pollJobAgeAlarmSeconds(config: ChangeBridgeConfig): number {
  const rateMs = parseDuration(plannerRateText(config));
  const visibilitySeconds = config.pollerTimeoutSeconds * VISIBILITY_TIMEOUT_FACTOR;
  return Math.ceil(plannerLookaheadMs(rateMs) / 1000) + visibilitySeconds;
}

/**
 * Evaluation periods (5 minutes each) of a dispatch queue's `…NotReceived` alarm: 3 on a
 * standard queue, whose event source mapping receives a visible message within seconds. A FIFO
 * queue's visible messages may also wait behind one of their message group in flight (an
 * invocation until its timeout, a failed record until the visibility timeout of 6 ×
 * `dispatcherTimeoutSeconds`): there, that visibility timeout and one period more.
 */
export function dispatchNotReceivedPeriods(config: ChangeBridgeConfig, fifo: boolean): number {
  if (!fifo) return 3;
  const visibilitySeconds = config.dispatcherTimeoutSeconds * VISIBILITY_TIMEOUT_FACTOR;
  return Math.max(3, Math.ceil(visibilitySeconds / FIVE_MINUTES.toSeconds()) + 1);
}

/** Options of {@link ChangeBridgeMonitoring}. */
export interface ChangeBridgeMonitoringProps {
  config: ChangeBridgeConfig;
  state: ChangeBridgeState;
  runtime: ChangeBridgeRuntime;
}

/**
 * Alarms (dead letters, poll failures, poll jobs waiting, dispatcher errors, dispatch queue messages none receives, dispatch queue messages unfinished too long, watermark age, delivery failure rate,
 * malformed dispatch messages, records set aside, events refused for good, parked streams, connector 429s, throttling)
 * publishing to an encrypted SNS topic, and one
 * dashboard.
 */
export class ChangeBridgeMonitoring extends Construct {
  readonly alarmTopic: Topic;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;
  private readonly config: ChangeBridgeConfig;

  constructor(scope: Construct, id: string, props: ChangeBridgeMonitoringProps) {
    super(scope, id);
    const { config, state, runtime } = props;
    this.config = config;

    this.alarmTopic = new Topic(this, 'AlarmTopic', {
      displayName: 'change-bridge alarms',
      masterKey: state.dataKey,
      enforceSSL: true,
    });
    // Only on behalf of this account's alarms (confused deputy): the key guards the table too.
    const stack = Stack.of(state.dataKey);
    const fromOwnAlarms = {
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: {
        'aws:SourceArn': stack.formatArn({
          service: 'cloudwatch',
          resource: 'alarm',
          resourceName: '*',
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      },
    };
    // CloudWatch alarms publish to an encrypted topic only if they may use its key.
    state.dataKey.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
        resources: ['*'],
        conditions: fromOwnAlarms,
      }),
    );
    // enforceSSL gives the topic a policy of its own, which replaces SNS's default one (that let
    // the account's alarms publish): without this Allow, every alarm's publish is refused.
    this.alarmTopic.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.alarmTopic.topicArn],
        conditions: fromOwnAlarms,
      }),
    );
    if (config.alarmEmail)
      this.alarmTopic.addSubscription(new EmailSubscription(config.alarmEmail));

    for (const [name, dlq] of state.deadLetterQueues) {
      this.addAlarm(`${name}DeadLetters`, {
        description: `Messages are waiting in the ${name} dead-letter queue: inspect, fix, redrive.`,
        metric: dlq.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        threshold: 1,
        evaluationPeriods: 1,
      });
    }

    const pollFailures = new MathExpression({
      label: 'Poll failures',
      expression: 'FILL(errors, 0) + FILL(plannerErrors, 0) + FILL(failures, 0)',
      usingMetrics: {
        errors: runtime.poller.metricErrors({ period: FIVE_MINUTES }),
        plannerErrors: runtime.planner.metricErrors({ period: FIVE_MINUTES }),
        failures: this.customMetric(BRIDGE_METRICS.pollFailures),
      },
      period: FIVE_MINUTES,
    });
    // Three failing 5-minute periods in a row: a connector hiccup is retried, an outage is not.
    this.addAlarm('PollFailures', {
      description: 'Polls keep failing (poller or planner errors, or PollFailures).',
      metric: pollFailures,
      threshold: 1,
      evaluationPeriods: 3,
    });

    // Every other poll alarm needs polls to run: a schedule that stopped invoking the planner
    // (disabled, its role broken) makes no error and no data. The planner runs every
    // pollRateMinutes whatever the connections, so no invocation in two such periods (at least
    // 5 minutes each) is an alarm, and so is no data.
    const plannerPeriod = Duration.minutes(Math.max(5, config.pollRateMinutes));
    this.addAlarm('PlannerNotRunning', {
      description:
        'The planner has not run: no poll job is planned (is its schedule enabled, can its role invoke it?).',
      metric: runtime.planner.metricInvocations({ period: plannerPeriod, statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: plannerPeriod.toMinutes() > 720 ? 1 : 2,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.BREACHING,
    });

    // Every other poll alarm reads what poll jobs report: pollers that take no job (their event
    // source disabled, their concurrency at 0, their backlog beyond pollerMaxConcurrency) report
    // nothing, and the planner's jobs wait in the queue. A healthy job waits there at most its
    // delay (the planner's lookahead: one POLL_INTERVAL, at most 15 minutes) and, after one
    // failed attempt, a visibility timeout before its retry: older than both, it is stuck.
    const pollJobAgeSeconds = pollJobAgeAlarmSeconds(config);
    this.addAlarm('PollJobAge', {
      description: `A poll job has waited in its queue more than ${pollJobAgeSeconds} s: the pollers are not taking jobs, or fall behind (raise pollerMaxConcurrency?).`,
      metric: state.pollJobQueue.metricApproximateAgeOfOldestMessage({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      threshold: pollJobAgeSeconds,
      evaluationPeriods: 2,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });

    // The dispatcher answers a record it could not handle with a batch item failure, so a failed
    // invocation means it cannot work at all (a bad setting, a missing permission): it then makes
    // no attempt (the failure rate stays empty) and its messages reach the dead-letter queue only
    // after 10 receives of its visibility timeout, hours later. Three periods, as for polls.
    this.addAlarm('DispatcherErrors', {
      description:
        'Dispatcher invocations keep failing: webhooks are not delivered (see its ERROR logs).',
      metric: runtime.dispatcher.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 3,
    });

    // A dispatcher that takes no message (its event source mapping disabled, or unable to read
    // the queue or reach the function) makes no error, no attempt and no dead letter: webhook
    // deliveries just stop. Retries wait as delayed messages (up to 15 minutes a hop, hours in
    // all), which are not visible, and a working mapping receives a visible message within
    // seconds, however busy: visible messages and none received for a whole period is stuck.
    const dispatchQueues: [string, IQueue | undefined, boolean][] = [
      ['Dispatch', state.dispatchQueue, config.dispatchQueueFifo],
      ['BulkDispatch', state.bulkDispatchQueue, config.dispatchQueueFifo],
      ['DispatchRetry', state.dispatchRetryQueue, false],
    ];
    for (const [name, queue, fifo] of dispatchQueues) {
      if (!queue) continue;
      const periods = dispatchNotReceivedPeriods(config, fifo);
      this.addAlarm(`${name}NotReceived`, {
        description: `Messages wait visible in the ${name} queue and none was received for ${periods * 5} minutes: the dispatcher takes none, webhooks are not delivered (is its event source mapping enabled, can it read the queue and invoke the function?).`,
        metric: new MathExpression({
          label: `${name} messages visible, none received`,
          expression: 'IF(FILL(visible, 0) > 0 AND FILL(received, 0) == 0, 1, 0)',
          usingMetrics: {
            visible: queue.metricApproximateNumberOfMessagesVisible({
              period: FIVE_MINUTES,
              statistic: 'Maximum',
            }),
            received: queue.metricNumberOfMessagesReceived({
              period: FIVE_MINUTES,
              statistic: 'Sum',
            }),
          },
          period: FIVE_MINUTES,
        }),
        threshold: 1,
        evaluationPeriods: periods,
      });
    }

    // A dispatcher that receives its messages but cannot finish them (crashing at init, timing
    // out, throttled to 0) leaves them to age past what a working one leaves there: see
    // dispatchAgeAlarmSeconds. Not the bulk queue: its events wait behind live work as long as
    // a backfill lasts, and the same function reads the queues watched here.
    const agedQueues: [string, IQueue | undefined, boolean][] = [
      ['Dispatch', state.dispatchQueue, !config.dispatchQueueFifo],
      ['DispatchRetry', state.dispatchRetryQueue, true],
    ];
    for (const [name, queue, holdsDelayedMessages] of agedQueues) {
      if (!queue) continue;
      const ageSeconds = dispatchAgeAlarmSeconds(config, holdsDelayedMessages);
      this.addAlarm(`${name}Age`, {
        description: `A message has waited in the ${name} queue more than ${ageSeconds} s, longer than any retry delay or visibility timeout: the dispatcher receives messages but does not finish them (crashing at init, timing out, throttled?), or falls behind (raise dispatcherMaxConcurrency?).`,
        metric: queue.metricApproximateAgeOfOldestMessage({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        threshold: ageSeconds,
        evaluationPeriods: 2,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
    }

    // The oldest age each poll job sends, not a Metrics Insights query over the per-stream
    // metrics: a query reads at most 10,000 metrics (769 properties of 13 streams), so beyond
    // that a stalled stream could be among those it never read.
    const watermarkAge = this.customMetric(BRIDGE_METRICS.oldestWatermarkAgeSeconds).with({
      statistic: 'Maximum',
    });
    this.addAlarm('WatermarkAge', {
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
        ok: this.customMetric(BRIDGE_METRICS.deliveriesSucceeded),
        failed: this.customMetric(BRIDGE_METRICS.deliveriesFailed),
      },
      period: FIVE_MINUTES,
    });
    this.addAlarm('DeliveryFailureRate', {
      description: `More than ${config.deliveryFailureAlarmPercent}% of webhook delivery attempts fail.`,
      metric: failureRate,
      threshold: config.deliveryFailureAlarmPercent,
      evaluationPeriods: 3,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });

    const throttles = new MathExpression({
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
    // A message that is not an event is dropped (redriving it could not help): someone sends
    // to the dispatch queue what the bridge did not write, or a version mismatch. Say so at once.
    this.addAlarm('MalformedDispatchMessages', {
      description:
        'The dispatcher dropped dispatch queue messages that were not events: see its WARN logs.',
      metric: this.customMetric(BRIDGE_METRICS.dispatchMessagesMalformed),
      threshold: 1,
      evaluationPeriods: 1,
    });

    // A record that broke its schema was set aside: its change was not published, and no later
    // poll publishes it unless the record changes again (README: recover with a backfill).
    this.addAlarm('RecordsSetAside', {
      description:
        'Polls set aside records that broke their schema, unpublished: see the poller WARN logs and GET /streams.',
      metric: this.customMetric(BRIDGE_METRICS.recordsSetAside),
      threshold: 1,
      evaluationPeriods: 1,
    });

    // An event refused for good (too large even thin, or malformed for the target) is not
    // published and never will be: the stream goes on without it, so someone must look at once.
    // Events left unpublished by a publish that failed are published again when its job repeats.
    const { metricsNamespace, serviceName } = config;
    const unfinished = UNFINISHED_PUBLISH_REASONS.map((reason) => ` AND reason != '${reason}'`);
    this.addAlarm('EventsRefused', {
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
    this.addAlarm('StreamsParked', {
      description:
        'Streams are parked: the connector refused their connection credentials (401/403). Store working tokens (or disable the connection); GET /streams names them.',
      metric: this.customMetric(BRIDGE_METRICS.streamsParked),
      threshold: 1,
      evaluationPeriods: 1,
      // Jobs come at the streams' interval, which may be longer than a period: keep the state.
      treatMissingData: TreatMissingData.IGNORE,
    });

    // The shared budget (with its margin) keeps every token under the server's 200 requests per
    // 30 s: a 429 means something else spends the token too, or the margin is too thin. Polls
    // wait it out (Retry-After), so one is no incident; 429s in three periods in a row are.
    this.addAlarm('ConnectorThrottled', {
      description:
        'The Connector API keeps answering 429: a token is spent beyond the bridge budget (another client uses it too?); polls wait for Retry-After meanwhile.',
      metric: this.customMetric(BRIDGE_METRICS.connectorThrottled),
      threshold: 1,
      evaluationPeriods: 3,
    });

    this.addAlarm('Throttles', {
      description:
        'Lambda throttles the bridge: raise the account concurrency or lower maxConcurrency.',
      metric: throttles,
      threshold: 1,
      evaluationPeriods: 2,
    });

    this.dashboard = this.createDashboard(state, runtime, { pollFailures, failureRate, throttles });
  }

  private addAlarm(
    id: string,
    options: {
      description: string;
      metric: IMetric;
      threshold: number;
      evaluationPeriods: number;
      comparisonOperator?: ComparisonOperator;
      treatMissingData?: TreatMissingData;
    },
  ): void {
    const alarm = new Alarm(this, id, {
      alarmDescription: options.description,
      metric: options.metric,
      threshold: options.threshold,
      evaluationPeriods: options.evaluationPeriods,
      comparisonOperator:
        options.comparisonOperator ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // No traffic is not a failure; a stopped bridge shows in the poll failure alarm.
      treatMissingData: options.treatMissingData ?? TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.alarmTopic));
    alarm.addOkAction(new SnsAction(this.alarmTopic));
    this.alarms.push(alarm);
  }

  /** A custom metric the handlers publish, with the `service` dimension Powertools adds. */
  private customMetric(metricName: string): Metric {
    return new Metric({
      namespace: this.config.metricsNamespace,
      metricName,
      dimensionsMap: { [SERVICE_DIMENSION]: this.config.serviceName },
      statistic: 'Sum',
      period: FIVE_MINUTES,
    });
  }

  /**
   * The watermark age per stream, as a CloudWatch Metrics Insights query (`groupBy` splits it per
   * stream): for the dashboard only, since a query reads at most 10,000 metrics and returns at
   * most 500 series.
   */
  private insightsQuery(label: string, groupBy: string): MathExpression {
    const { metricsNamespace, serviceName } = this.config;
    const query =
      `SELECT MAX(${BRIDGE_METRICS.watermarkAgeSeconds}) FROM "${metricsNamespace}" ` +
      `WHERE ${SERVICE_DIMENSION} = '${serviceName}'${groupBy}`;
    return new MathExpression({ label, expression: query, usingMetrics: {}, period: FIVE_MINUTES });
  }

  private createDashboard(
    state: ChangeBridgeState,
    runtime: ChangeBridgeRuntime,
    metrics: { pollFailures: IMetric; failureRate: IMetric; throttles: IMetric },
  ): Dashboard {
    const dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    const functions = [...runtime.functions];
    const queues = [
      ['Poll jobs', state.pollJobQueue],
      ['Dispatch', state.dispatchQueue],
      ['Bulk dispatch', state.bulkDispatchQueue],
      ...(state.dispatchRetryQueue
        ? [['Dispatch retries', state.dispatchRetryQueue] as const]
        : []),
      ...(state.eventsQueue ? [['Events', state.eventsQueue] as const] : []),
    ] as const;
    const dlqs = [...state.deadLetterQueues];
    dashboard.addWidgets(
      new TextWidget({
        markdown: '# change-bridge\nPolling → SQS → webhooks; EventBridge for the rules on the bus',
        width: 24,
        height: 1,
      }),
      new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 3 }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: this.config.streamMetrics
          ? 'Watermark age: oldest, and the 20 oldest streams (s)'
          : 'Oldest watermark age (s)',
        left: [
          this.customMetric(BRIDGE_METRICS.oldestWatermarkAgeSeconds).with({
            statistic: 'Maximum',
            label: 'Oldest',
          }),
          // Only where the poller sends them per stream (streamMetrics).
          ...(this.config.streamMetrics
            ? [this.insightsQuery('', ` GROUP BY ${STREAM_DIMENSION} ORDER BY MAX() DESC LIMIT 20`)]
            : []),
        ],
        width: 12,
      }),
      new GraphWidget({
        title: 'Deliveries',
        left: [
          this.customMetric(BRIDGE_METRICS.deliveriesSucceeded).with({ label: 'Succeeded' }),
          this.customMetric(BRIDGE_METRICS.deliveriesFailed).with({ label: 'Failed' }),
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
          this.customMetric(BRIDGE_METRICS.connectorRequests).with({ label: 'Requests' }),
          this.customMetric(BRIDGE_METRICS.connectorThrottled).with({ label: '429 answers' }),
        ],
        width: 12,
      }),
      new GraphWidget({
        title: 'Connector budget used, busiest token (%) and parked streams',
        left: [
          this.customMetric(BRIDGE_METRICS.connectorBudgetUsedPercent).with({
            label: 'Budget used (max %)',
            statistic: 'Maximum',
          }),
        ],
        right: [
          this.customMetric(BRIDGE_METRICS.streamsParked).with({
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
}
