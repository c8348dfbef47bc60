import { join } from 'node:path';
import { Duration, Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { AdminHttpApi } from './admin-http-api.ts';
import { createBridgeFunction } from './bridge-function.ts';
import { ResolvedLengths } from './environment-limit.ts';
import { type ChangeBridgeConfig, plannerRateText } from './props.ts';
import { bridgeEnvironment } from './runtime/bridge-environment.ts';
import { grantData } from './runtime/grant-data.ts';
import { ARN_SIZE_ESTIMATE_CONTEXT_KEY, policyArnEstimate } from './runtime/policy-arn-estimate.ts';
import { addQueueEventSources } from './runtime/queue-event-sources.ts';
import type { ChangeBridgeState } from './stateful.ts';

/** Options of {@link ChangeBridgeRuntime}. */
export interface ChangeBridgeRuntimeProps {
  config: ChangeBridgeConfig;
  state: ChangeBridgeState;
}

/**
 * The stateless half: the four functions, the planner's schedule, the SQS event sources
 * and the admin API. The poller feeds the dispatch queue itself (SendMessageBatch) and puts
 * on the bus only the events a rule there matches: no rule of ours sits on the bus. It can
 * be destroyed and redeployed without losing data; it reaches the state only through grants.
 */
export class ChangeBridgeRuntime extends Construct {
  readonly planner: NodejsFunction;
  readonly poller: NodejsFunction;
  readonly dispatcher: NodejsFunction;
  readonly adminFunction: NodejsFunction;
  readonly schedule: Schedule;
  /** The role EventBridge Scheduler assumes to invoke the planner. */
  readonly schedulerRole: Role;
  readonly adminApi: AdminHttpApi;

  constructor(scope: Construct, id: string, props: ChangeBridgeRuntimeProps) {
    super(scope, id);
    const { config, state } = props;
    // Before any role exists: the ARN length the roles size their policies by (below).
    this.node.setContext(ARN_SIZE_ESTIMATE_CONTEXT_KEY, policyArnEstimate(this, config));

    const resolvedLengths = new ResolvedLengths();
    const environment = bridgeEnvironment(config, state, resolvedLengths);
    const fn = (
      name: string,
      file: string,
      description: string,
      timeoutSeconds: number,
      memorySize: number,
      extra: {
        copyDirs?: { from: string; to: string }[];
        environment?: Record<string, string>;
      } = {},
    ) =>
      createBridgeFunction(this, name, {
        entry: join(config.functionsDir, file),
        description,
        timeout: Duration.seconds(timeoutSeconds),
        memorySize,
        environment: { ...environment, ...extra.environment },
        resolvedLengths,
        logRetention: config.logRetentionDays,
        ...(extra.copyDirs ? { copyDirs: extra.copyDirs } : {}),
      });

    // It plans up to its next run: the schedule's rate, whatever POLL_INTERVAL says.
    this.planner = fn('Planner', 'planner.ts', 'change-bridge: enqueues due poll jobs', 30, 256, {
      environment: { PLANNER_RATE: plannerRateText(config) },
    });
    this.poller = fn(
      'Poller',
      'poller.ts',
      'change-bridge: polls the due streams of one connection',
      config.pollerTimeoutSeconds,
      1024,
    );
    this.dispatcher = fn(
      'Dispatcher',
      'dispatcher.ts',
      'change-bridge: delivers webhooks',
      config.dispatcherTimeoutSeconds,
      512,
    );
    // 29 s is API Gateway's integration timeout; a longer function would be cut off anyway.
    this.adminFunction = fn(
      'AdminApiFunction',
      'admin-api.ts',
      'change-bridge: admin API',
      29,
      512,
      // The operator console's page and scripts, read from beside the bundle (routes-console.ts).
      {
        copyDirs: [
          { from: join(config.functionsDir, '..', 'shared', 'admin', 'console'), to: 'console' },
        ],
      },
    );

    grantData(this, state);

    this.schedulerRole = new Role(this, 'SchedulerRole', {
      description: 'change-bridge: EventBridge Scheduler invokes the planner',
      // Only schedules of this account may assume it (confused-deputy guard).
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    });
    this.schedule = new Schedule(this, 'PlannerSchedule', {
      description: 'change-bridge: runs the planner',
      schedule: ScheduleExpression.rate(Duration.minutes(config.pollRateMinutes)),
      // A missed run is not retried: the next one plans the same streams.
      target: new LambdaInvoke(this.planner, {
        role: this.schedulerRole,
        retryAttempts: 0,
        maxEventAge: Duration.minutes(1),
      }),
    });
    // The Scheduler invokes the planner asynchronously: the retry policy above covers only its
    // delivery to Lambda, and Lambda itself would retry a failed run twice (1 and 2 minutes on,
    // beside the next scheduled runs) and keep a throttled one up to 6 hours. Neither, here.
    this.planner.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
    addQueueEventSources(this.poller, this.dispatcher, config, state);

    this.adminApi = new AdminHttpApi(this, 'AdminApi', {
      handler: this.adminFunction,
      logRetention: config.logRetentionDays,
    });
  }

  /** All four functions, for alarms and the dashboard. */
  get functions(): ReadonlyMap<string, NodejsFunction> {
    return new Map([
      ['Planner', this.planner],
      ['Poller', this.poller],
      ['Dispatcher', this.dispatcher],
      ['Admin API', this.adminFunction],
    ]);
  }
}
