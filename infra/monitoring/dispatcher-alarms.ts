import { Duration } from 'aws-cdk-lib';
import { ComparisonOperator, MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { dispatchAgeAlarmSeconds } from '../dispatch-age-alarm.ts';
import type { ChangeBridgeConfig } from '../props.ts';
import type { ChangeBridgeRuntime } from '../runtime.ts';
import type { ChangeBridgeState } from '../stateful.ts';
import type { AddAlarm } from './add-alarm.ts';
import { dispatchNotReceivedPeriods } from './alarm-thresholds.ts';
import { FIVE_MINUTES } from './bridge-metrics.ts';

/**
 * The alarms that webhooks are dispatched (`DispatcherErrors`, then `…NotReceived` and `…Age`
 * for each dispatch queue the stack has), in that order.
 */
export function addDispatcherAlarms(
  addAlarm: AddAlarm,
  config: ChangeBridgeConfig,
  state: ChangeBridgeState,
  runtime: ChangeBridgeRuntime,
): void {
  // The dispatcher answers a record it could not handle with a batch item failure, so a failed
  // invocation means it cannot work at all (a bad setting, a missing permission): it then makes
  // no attempt (the failure rate stays empty) and its messages reach the dead-letter queue only
  // after 10 receives of its visibility timeout, hours later. Three periods, as for polls.
  addAlarm('DispatcherErrors', {
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
    addAlarm(`${name}NotReceived`, {
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
    addAlarm(`${name}Age`, {
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
}
