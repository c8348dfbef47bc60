import { CfnOutput } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ChangeBridgeMonitoring } from './monitoring.ts';
import type { ChangeBridgeRuntime } from './runtime.ts';
import type { ChangeBridgeState } from './stateful.ts';

/** One stack output: its key, what it is, and its value (absent: no output). */
type OutputSpec = [name: string, description: string, value: string | undefined];

function addOutputs(scope: Construct, outputs: readonly OutputSpec[]): void {
  for (const [name, description, value] of outputs) {
    if (value !== undefined) new CfnOutput(scope, name, { description, value });
  }
}

/**
 * Outputs of the stateful resources: what downstream teams and operators look up. Added to a
 * stack of their own (`scope` the stack), their keys are the names below (`EventBusName`);
 * added beside other constructs, the key carries the scope's path and a hash.
 */
export function addStateOutputs(state: ChangeBridgeState, scope: Construct = state): void {
  addOutputs(scope, [
    [
      'EventBusName',
      'EventBridge bus carrying change events; write rules on it',
      state.bus.eventBusName,
    ],
    [
      'EventBusArn',
      'ARN of the change event bus (cross-account rules, resource policies)',
      state.bus.eventBusArn,
    ],
    [
      'StateTableName',
      'DynamoDB table of watermarks, snapshots, subscriptions and deliveries',
      state.table.tableName,
    ],
    [
      'PollJobQueueUrl',
      'Queue of poll jobs the planner sends to the pollers',
      state.pollJobQueue.queueUrl,
    ],
    ['DispatchQueueUrl', 'Dispatch queue of live webhook deliveries', state.dispatchQueue.queueUrl],
    [
      'BulkDispatchQueueUrl',
      'Dispatch queue of bulk work (a first sync or backfill that emits)',
      state.bulkDispatchQueue.queueUrl,
    ],
    [
      'DispatchRetryQueueUrl',
      'Queue of the dispatcher’s delivery messages (retries) beside FIFO dispatch queues',
      state.dispatchRetryQueue?.queueUrl,
    ],
    [
      'EventsQueueUrl',
      'SQS queue receiving every change event (PUBLISH_TARGETS sqs or both)',
      state.eventsQueue?.queueUrl,
    ],
    [
      'DeploymentSecretName',
      'Store { baseUrl, clientToken, client? } here once; every connection added at run time uses it',
      state.deploymentSecret.secretName,
    ],
    ...[...state.connectionSecretNames].map(
      ([id, name]): OutputSpec => [
        `ConnectionSecret-${id}`,
        `Store the credentials of connection ${id} here (put-secret-value)`,
        name,
      ],
    ),
  ]);
}

/** Outputs of the runtime: the admin API URL, the alarm topic and the dashboard. */
export function addRuntimeOutputs(
  runtime: ChangeBridgeRuntime,
  monitoring: ChangeBridgeMonitoring,
  scope?: Construct,
): void {
  addOutputs(scope ?? runtime, [
    ['AdminApiUrl', 'Admin API (SigV4-signed requests, IAM authorization)', runtime.adminApi.url],
  ]);
  addOutputs(scope ?? monitoring, [
    [
      'AlarmTopicArn',
      'SNS topic of the alarms (subscribe your paging here)',
      monitoring.alarmTopic.topicArn,
    ],
    [
      'DashboardName',
      'CloudWatch dashboard: watermark age, deliveries, errors, queue depth',
      monitoring.dashboard.dashboardName,
    ],
  ]);
}
