import { Duration } from 'aws-cdk-lib';
import type { Alarm, Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { alarmAdder } from './monitoring/add-alarm.ts';
import { createAlarmTopic } from './monitoring/alarm-topic.ts';
import { lambdaThrottles } from './monitoring/bridge-metrics.ts';
import { addCustomMetricAlarms } from './monitoring/custom-metric-alarms.ts';
import { createDashboard } from './monitoring/dashboard.ts';
import { addDispatcherAlarms } from './monitoring/dispatcher-alarms.ts';
import { addPollAlarms } from './monitoring/poll-alarms.ts';
import type { ChangeBridgeConfig } from './props.ts';
import type { ChangeBridgeRuntime } from './runtime.ts';
import type { ChangeBridgeState } from './stateful.ts';

export {
  dispatchNotReceivedPeriods,
  pollJobAgeAlarmSeconds,
} from './monitoring/alarm-thresholds.ts';

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

  constructor(scope: Construct, id: string, props: ChangeBridgeMonitoringProps) {
    super(scope, id);
    const { config, state, runtime } = props;

    this.alarmTopic = createAlarmTopic(this, config, state);
    // The order alarms are added in is the order of the stack's resources and of the
    // dashboard's alarm status widget.
    const addAlarm = alarmAdder(this, this.alarmTopic, this.alarms);

    for (const [name, dlq] of state.deadLetterQueues) {
      addAlarm(`${name}DeadLetters`, {
        description: `Messages are waiting in the ${name} dead-letter queue: inspect, fix, redrive.`,
        metric: dlq.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        threshold: 1,
        evaluationPeriods: 1,
      });
    }
    const pollFailures = addPollAlarms(addAlarm, config, state, runtime);
    addDispatcherAlarms(addAlarm, config, state, runtime);
    const failureRate = addCustomMetricAlarms(addAlarm, config);

    const throttles = lambdaThrottles(runtime);
    addAlarm('Throttles', {
      description:
        'Lambda throttles the bridge: raise the account concurrency or lower maxConcurrency.',
      metric: throttles,
      threshold: 1,
      evaluationPeriods: 2,
    });

    this.dashboard = createDashboard(this, {
      config,
      state,
      runtime,
      alarms: this.alarms,
      metrics: { pollFailures, failureRate, throttles },
    });
  }
}
