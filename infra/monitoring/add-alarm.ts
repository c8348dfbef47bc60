import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';

/** What one alarm of the bridge watches, and when it fires. */
export interface BridgeAlarmOptions {
  description: string;
  metric: IMetric;
  threshold: number;
  evaluationPeriods: number;
  comparisonOperator?: ComparisonOperator;
  treatMissingData?: TreatMissingData;
}

/** Adds one alarm, under the construct id given, that notifies the alarm topic. */
export type AddAlarm = (id: string, options: BridgeAlarmOptions) => void;

/**
 * An {@link AddAlarm} that makes each alarm a child of `scope`, sends its ALARM and OK
 * transitions to `topic`, and appends it to `alarms` (in the order added, which the dashboard's
 * alarm status widget keeps).
 */
export function alarmAdder(scope: Construct, topic: Topic, alarms: Alarm[]): AddAlarm {
  return (id, options) => {
    const alarm = new Alarm(scope, id, {
      alarmDescription: options.description,
      metric: options.metric,
      threshold: options.threshold,
      evaluationPeriods: options.evaluationPeriods,
      comparisonOperator:
        options.comparisonOperator ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // No traffic is not a failure; a stopped bridge shows in the poll failure alarm.
      treatMissingData: options.treatMissingData ?? TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(topic));
    alarm.addOkAction(new SnsAction(topic));
    alarms.push(alarm);
  };
}
