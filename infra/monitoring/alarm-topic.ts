import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import type { ChangeBridgeConfig } from '../props.ts';
import type { ChangeBridgeState } from '../stateful.ts';

/**
 * The SNS topic the alarms publish to, as `AlarmTopic` under `scope`: encrypted with the data
 * key, TLS only, open to this account's CloudWatch alarms alone, and mailed to `alarmEmail`
 * where one is set. Adds the key policy statement that lets those alarms use the key.
 */
export function createAlarmTopic(
  scope: Construct,
  config: ChangeBridgeConfig,
  state: ChangeBridgeState,
): Topic {
  const alarmTopic = new Topic(scope, 'AlarmTopic', {
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
  alarmTopic.addToResourcePolicy(
    new PolicyStatement({
      principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [alarmTopic.topicArn],
      conditions: fromOwnAlarms,
    }),
  );
  if (config.alarmEmail) alarmTopic.addSubscription(new EmailSubscription(config.alarmEmail));
  return alarmTopic;
}
