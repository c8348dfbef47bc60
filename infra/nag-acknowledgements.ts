import { Stack, Validations } from 'aws-cdk-lib';
import { CfnFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import type { ChangeBridgeRuntime } from './runtime.ts';
import type { ChangeBridgeState } from './stateful.ts';

/**
 * Acknowledges, each with its reason, the cdk-nag AwsSolutions findings the design
 * accepts on the stateful resources. Anything else fails synthesis.
 */
export function acknowledgeStateFindings(state: ChangeBridgeState): void {
  for (const secret of [...state.connectionSecrets.values(), state.deploymentSecret]) {
    acknowledge(
      secret,
      'AwsSolutions-SMG4',
      'Connector API tokens are issued by the hotel system, not by AWS: no rotation Lambda can ' +
        'mint new ones. Operators rotate them in the hotel system and store the new tokens ' +
        'with put-secret-value.',
    );
  }
}

/**
 * Acknowledges, each with its reason, the cdk-nag AwsSolutions findings the design
 * accepts on the runtime. Anything else fails synthesis.
 */
export function acknowledgeRuntimeFindings(runtime: ChangeBridgeRuntime): void {
  // The table is encrypted with the data key; the table grant of the three functions that write
  // to it adds these two KMS actions, on that key's ARN only. The planner reads the table, and
  // senders to the queues hold named actions (kms:GenerateDataKey and kms:Decrypt), as on the
  // connection token key: none of them is acknowledged.
  for (const fn of [runtime.poller, runtime.dispatcher, runtime.adminFunction]) {
    if (!fn.role) continue;
    for (const action of ['kms:GenerateDataKey*', 'kms:ReEncrypt*']) {
      acknowledge(
        fn.role,
        `AwsSolutions-IAM5[Action::${action}]`,
        `${action} is added by the grant on the KMS-encrypted table to a function that writes ` +
          "it, and is scoped to the bridge's own data key; no other key is reachable.",
      );
    }
  }
  // The two publishers: the poller and the admin API's connector proxy.
  for (const fn of [runtime.poller, runtime.adminFunction]) {
    if (!fn.role) continue;
    acknowledge(
      fn.role,
      'AwsSolutions-IAM5[Resource::*]',
      'events:ListRules has no resource-level permissions (IAM evaluates it against *); the ' +
        "publisher lists the bridge bus's rules to put only events a rule matches. It reveals " +
        'rule names and patterns only; no other action is granted on *.',
    );
  }
  acknowledge(
    runtime.schedulerRole,
    `AwsSolutions-IAM5[Resource::<${logicalIdOf(runtime.planner)}.Arn>:*]`,
    'The Scheduler target grant covers the planner function and its versions/aliases ' +
      '(`<arn>:*`); no other function is reachable.',
  );
}

/** Rule ids qualified by the plugin's name, the form the CDK's validation report prints. */
function acknowledge(scope: IConstruct, ruleId: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `AwsSolutions::${ruleId}`, reason });
}

/** The CloudFormation logical id cdk-nag prints in findings (`<LogicalId.Arn>`). */
function logicalIdOf(fn: IFunction): string {
  const cfn = fn.node.defaultChild;
  if (!(cfn instanceof CfnFunction)) throw new Error(`${fn.node.path} has no CfnFunction`);
  return Stack.of(fn).getLogicalId(cfn);
}
