import { CfnOutput } from 'aws-cdk-lib';
import type { ChangeBridgeMonitoring } from './monitoring.ts';
import type { ChangeBridgeRuntime } from './runtime.ts';
import type { ChangeBridgeState } from './stateful.ts';

/** Outputs of the stateful resources: what downstream teams and operators look up. */
export function addStateOutputs(state: ChangeBridgeState): void {
  new CfnOutput(state, 'EventBusName', {
    description: 'EventBridge bus carrying change events; write rules on it',
    value: state.bus.eventBusName,
  });
  new CfnOutput(state, 'EventBusArn', { value: state.bus.eventBusArn });
  new CfnOutput(state, 'StateTableName', { value: state.table.tableName });
  new CfnOutput(state, 'PollJobQueueUrl', { value: state.pollJobQueue.queueUrl });
  new CfnOutput(state, 'DispatchQueueUrl', { value: state.dispatchQueue.queueUrl });
  new CfnOutput(state, 'BulkDispatchQueueUrl', {
    description: 'Dispatch queue of bulk work (a first sync or backfill that emits)',
    value: state.bulkDispatchQueue.queueUrl,
  });
  if (state.dispatchRetryQueue) {
    new CfnOutput(state, 'DispatchRetryQueueUrl', {
      description:
        'Queue of the dispatcher’s delivery messages (retries) beside FIFO dispatch queues',
      value: state.dispatchRetryQueue.queueUrl,
    });
  }
  if (state.eventsQueue) {
    new CfnOutput(state, 'EventsQueueUrl', {
      description: 'SQS queue receiving every change event (PUBLISH_TARGETS sqs or both)',
      value: state.eventsQueue.queueUrl,
    });
  }
  new CfnOutput(state, 'DeploymentSecretName', {
    description:
      'Store { baseUrl, clientToken, client? } here once; every connection added at run time uses it',
    value: state.deploymentSecret.secretName,
  });
  for (const [id, name] of state.connectionSecretNames) {
    new CfnOutput(state, `ConnectionSecret-${id}`, {
      description: `Store the credentials of connection ${id} here (put-secret-value)`,
      value: name,
    });
  }
}

/** Outputs of the runtime: the admin API URL and the dashboard. */
export function addRuntimeOutputs(
  runtime: ChangeBridgeRuntime,
  monitoring: ChangeBridgeMonitoring,
): void {
  new CfnOutput(runtime, 'AdminApiUrl', {
    description: 'Admin API (SigV4-signed requests, IAM authorization)',
    value: runtime.adminApi.url,
  });
  new CfnOutput(monitoring, 'AlarmTopicArn', { value: monitoring.alarmTopic.topicArn });
  new CfnOutput(monitoring, 'DashboardName', { value: monitoring.dashboard.dashboardName });
}
