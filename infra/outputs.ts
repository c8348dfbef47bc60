import { CfnOutput } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ChangeBridgeMonitoring } from './monitoring.ts';
import type { ChangeBridgeRuntime } from './runtime.ts';
import type { ChangeBridgeState } from './stateful.ts';

/**
 * Outputs of the stateful resources: what downstream teams and operators look up. Added to a
 * stack of their own (`scope` the stack), their keys are the names below (`EventBusName`);
 * added beside other constructs, the key carries the scope's path and a hash.
 */
export function addStateOutputs(state: ChangeBridgeState, scope: Construct = state): void {
  new CfnOutput(scope, 'EventBusName', {
    description: 'EventBridge bus carrying change events; write rules on it',
    value: state.bus.eventBusName,
  });
  new CfnOutput(scope, 'EventBusArn', {
    description: 'ARN of the change event bus (cross-account rules, resource policies)',
    value: state.bus.eventBusArn,
  });
  new CfnOutput(scope, 'StateTableName', {
    description: 'DynamoDB table of watermarks, snapshots, subscriptions and deliveries',
    value: state.table.tableName,
  });
  new CfnOutput(scope, 'PollJobQueueUrl', {
    description: 'Queue of poll jobs the planner sends to the pollers',
    value: state.pollJobQueue.queueUrl,
  });
  new CfnOutput(scope, 'DispatchQueueUrl', {
    description: 'Dispatch queue of live webhook deliveries',
    value: state.dispatchQueue.queueUrl,
  });
  new CfnOutput(scope, 'BulkDispatchQueueUrl', {
    description: 'Dispatch queue of bulk work (a first sync or backfill that emits)',
    value: state.bulkDispatchQueue.queueUrl,
  });
  if (state.dispatchRetryQueue) {
    new CfnOutput(scope, 'DispatchRetryQueueUrl', {
      description:
        'Queue of the dispatcher’s delivery messages (retries) beside FIFO dispatch queues',
      value: state.dispatchRetryQueue.queueUrl,
    });
  }
  if (state.eventsQueue) {
    new CfnOutput(scope, 'EventsQueueUrl', {
      description: 'SQS queue receiving every change event (PUBLISH_TARGETS sqs or both)',
      value: state.eventsQueue.queueUrl,
    });
  }
  new CfnOutput(scope, 'DeploymentSecretName', {
    description:
      'Store { baseUrl, clientToken, client? } here once; every connection added at run time uses it',
    value: state.deploymentSecret.secretName,
  });
  for (const [id, name] of state.connectionSecretNames) {
    new CfnOutput(scope, `ConnectionSecret-${id}`, {
      description: `Store the credentials of connection ${id} here (put-secret-value)`,
      value: name,
    });
  }
}

/** Outputs of the runtime: the admin API URL and the dashboard. */
export function addRuntimeOutputs(
  runtime: ChangeBridgeRuntime,
  monitoring: ChangeBridgeMonitoring,
  scope?: Construct,
): void {
  new CfnOutput(scope ?? runtime, 'AdminApiUrl', {
    description: 'Admin API (SigV4-signed requests, IAM authorization)',
    value: runtime.adminApi.url,
  });
  new CfnOutput(scope ?? monitoring, 'AlarmTopicArn', {
    description: 'SNS topic of the alarms (subscribe your paging here)',
    value: monitoring.alarmTopic.topicArn,
  });
  new CfnOutput(scope ?? monitoring, 'DashboardName', {
    description: 'CloudWatch dashboard: watermark age, deliveries, errors, queue depth',
    value: monitoring.dashboard.dashboardName,
  });
}
