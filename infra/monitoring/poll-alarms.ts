import { Duration } from 'aws-cdk-lib';
import { ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { BRIDGE_METRICS } from '../metric-names.ts';
import type { ChangeBridgeConfig } from '../props.ts';
import type { ChangeBridgeRuntime } from '../runtime.ts';
import type { ChangeBridgeState } from '../stateful.ts';
import type { AddAlarm } from './add-alarm.ts';
import { pollJobAgeAlarmSeconds } from './alarm-thresholds.ts';
import { customMetric, FIVE_MINUTES } from './bridge-metrics.ts';

/**
 * The alarms that polls run (`PollFailures`, `PlannerNotRunning`, `PollJobAge`), in that order.
 * Returns the poll failures metric, which the dashboard graphs too.
 */
export function addPollAlarms(
  addAlarm: AddAlarm,
  config: ChangeBridgeConfig,
  state: ChangeBridgeState,
  runtime: ChangeBridgeRuntime,
): MathExpression {
  const pollFailures = new MathExpression({
    label: 'Poll failures',
    expression: 'FILL(errors, 0) + FILL(plannerErrors, 0) + FILL(failures, 0)',
    usingMetrics: {
      errors: runtime.poller.metricErrors({ period: FIVE_MINUTES }),
      plannerErrors: runtime.planner.metricErrors({ period: FIVE_MINUTES }),
      failures: customMetric(config, BRIDGE_METRICS.pollFailures),
    },
    period: FIVE_MINUTES,
  });
  // Three failing 5-minute periods in a row: a connector hiccup is retried, an outage is not.
  addAlarm('PollFailures', {
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
  addAlarm('PlannerNotRunning', {
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
  addAlarm('PollJobAge', {
    description: `A poll job has waited in its queue more than ${pollJobAgeSeconds} s: the pollers are not taking jobs, or fall behind (raise pollerMaxConcurrency?).`,
    metric: state.pollJobQueue.metricApproximateAgeOfOldestMessage({
      period: Duration.minutes(1),
      statistic: 'Maximum',
    }),
    threshold: pollJobAgeSeconds,
    evaluationPeriods: 2,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
  });
  return pollFailures;
}
