import { join } from 'node:path';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { dispatchEventPattern } from '../shared/publish/routing-rule.ts';
import { AdminHttpApi } from './admin-http-api.ts';
import { createBridgeFunction } from './bridge-function.ts';
import {
  type ChangeBridgeConfig,
  DISPATCH_BATCH_SIZE,
  DISPATCH_BATCHING_WINDOW_SECONDS,
} from './props.ts';
import type { ChangeBridgeState } from './stateful.ts';

/** Poll jobs are taken one at a time: each is every due stream of one connection. */
const POLL_JOB_BATCH_SIZE = 1;
/** SQS's largest batch for a standard queue without a batching window. */

/** Options of {@link ChangeBridgeRuntime}. */
export interface ChangeBridgeRuntimeProps {
  config: ChangeBridgeConfig;
  state: ChangeBridgeState;
}

/**
 * The stateless half: the four functions, the planner's schedule, the rule from the bus
 * to the dispatch queue, the SQS event sources and the admin API. It can be destroyed
 * and redeployed without losing data; it reaches the state only through grants.
 */
export class ChangeBridgeRuntime extends Construct {
  readonly planner: NodejsFunction;
  readonly poller: NodejsFunction;
  readonly dispatcher: NodejsFunction;
  readonly adminFunction: NodejsFunction;
  readonly schedule: Schedule;
  /** The role EventBridge Scheduler assumes to invoke the planner. */
  readonly schedulerRole: Role;
  readonly dispatchRule: Rule;
  /** Events the rule could not hand to the dispatch queue after EventBridge's retries. */
  readonly ruleDeadLetterQueue: Queue;
  readonly adminApi: AdminHttpApi;

  constructor(scope: Construct, id: string, props: ChangeBridgeRuntimeProps) {
    super(scope, id);
    // Scope the events→SQS grant to this account whatever the host app's feature flags:
    // without this flag the SqsQueue target lets any account's rules send to a KMS queue.
    // Context must be set before the first child construct.
    this.node.setContext('@aws-cdk/aws-events:eventsTargetQueueSameAccount', true);
    const { config, state } = props;

    const environment = bridgeEnvironment(this, config, state);
    const fn = (
      name: string,
      file: string,
      description: string,
      timeoutSeconds: number,
      memorySize: number,
      copyDirs?: { from: string; to: string }[],
    ) =>
      createBridgeFunction(this, name, {
        entry: join(config.functionsDir, file),
        description,
        timeout: Duration.seconds(timeoutSeconds),
        memorySize,
        environment,
        logRetention: config.logRetentionDays,
        ...(copyDirs ? { copyDirs } : {}),
      });

    this.planner = fn('Planner', 'planner.ts', 'change-bridge: enqueues due poll jobs', 30, 256);
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
      [{ from: join(config.functionsDir, '..', 'shared', 'admin', 'console'), to: 'console' }],
    );

    this.grantData(state);

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

    this.poller.addEventSource(
      new SqsEventSource(state.pollJobQueue, {
        batchSize: POLL_JOB_BATCH_SIZE,
        maxConcurrency: config.pollerMaxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    this.dispatcher.addEventSource(
      new SqsEventSource(state.dispatchQueue, {
        batchSize: DISPATCH_BATCH_SIZE,
        maxBatchingWindow: Duration.seconds(DISPATCH_BATCHING_WINDOW_SECONDS),
        maxConcurrency: config.dispatcherMaxConcurrency,
        reportBatchItemFailures: true,
      }),
    );

    this.ruleDeadLetterQueue = new Queue(this, 'RuleDeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.dispatchRule = new Rule(this, 'DispatchRule', {
      description: 'change-bridge: change events to the dispatch queue',
      eventBus: state.bus,
      eventPattern: dispatchEventPattern(config.eventSource),
      targets: [new SqsQueue(state.dispatchQueue, { deadLetterQueue: this.ruleDeadLetterQueue })],
    });

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

  /** Least privilege: each function gets the actions its job needs, on our resources only. */
  private grantData(state: ChangeBridgeState): void {
    const { table, bus, pollJobQueue, dispatchQueue, eventsQueue } = state;

    // Planner: reads connections by page and stream states, enqueues one job per connection;
    // it never opens a token.
    table.grantReadWriteData(this.planner);
    pollJobQueue.grantSendMessages(this.planner);

    // Poller: leases, snapshots and watermarks; publishes; reads the credentials; may
    // enqueue the rest of a window it could not finish before its timeout.
    table.grantReadWriteData(this.poller);
    bus.grantPutEventsTo(this.poller);
    if (eventsQueue) eventsQueue.grantSendMessages(this.poller);
    pollJobQueue.grantSendMessages(this.poller);
    for (const secret of state.connectionSecrets.values()) secret.grantRead(this.poller);
    // Stored connections: the deployment's endpoint and ClientToken, and their sealed tokens.
    state.deploymentSecret.grantRead(this.poller);
    state.connectionTokenKey.grantDecrypt(this.poller);

    // Dispatcher: subscriptions and delivery log; re-enqueues retries on its own queue;
    // publishes operational events (subscription.disabled, delivery.failing).
    table.grantReadWriteData(this.dispatcher);
    dispatchQueue.grantSendMessages(this.dispatcher);
    bus.grantPutEventsTo(this.dispatcher);

    // Admin API: manages subscriptions and streams, replays events, starts backfills; its
    // connector proxy writes with the connection's credentials and publishes like the poller.
    table.grantReadWriteData(this.adminFunction);
    dispatchQueue.grantSendMessages(this.adminFunction);
    pollJobQueue.grantSendMessages(this.adminFunction);
    bus.grantPutEventsTo(this.adminFunction);
    if (eventsQueue) eventsQueue.grantSendMessages(this.adminFunction);
    for (const secret of state.connectionSecrets.values()) secret.grantRead(this.adminFunction);
    // `connections add` seals a token under a new data key (GenerateDataKey, Encrypt, Decrypt).
    state.connectionTokenKey.grantEncryptDecrypt(this.adminFunction);
  }
}

/** The environment every handler reads (names fixed by the handlers' zod schemas). */
function bridgeEnvironment(
  scope: Construct,
  config: ChangeBridgeConfig,
  state: ChangeBridgeState,
): Record<string, string> {
  const secretArns = Object.fromEntries(
    [...state.connectionSecrets].map(([id, secret]) => [id, secret.secretArn]),
  );
  const optional: Record<string, string | undefined> = {
    PUBLISH_QUEUE_URL: state.eventsQueue?.queueUrl,
    POLL_OVERLAP: config.pollOverlap,
    POLL_SETTLE_LAG: config.pollSettleLag,
    POLL_ENTITIES: config.pollEntities?.join(','),
    POLL_EXPORT_IDS: config.pollExportIds?.join(','),
    POLL_PRODUCT_IDS: config.pollProductIds?.join(','),
  };
  return {
    STATE_TABLE_NAME: state.table.tableName,
    EVENT_BUS_NAME: state.bus.eventBusName,
    EVENT_SOURCE: config.eventSource,
    POLL_JOB_QUEUE_URL: state.pollJobQueue.queueUrl,
    DISPATCH_QUEUE_URL: state.dispatchQueue.queueUrl,
    PUBLISH_TARGETS: config.publishTargets,
    // The poller's publisher reads the PUBLISH_* names (shared/publish/publisher-config.ts).
    PUBLISH_EVENT_BUS_NAME: state.bus.eventBusName,
    PUBLISH_EVENT_SOURCE: config.eventSource,
    CONNECTION_SECRET_ARNS: Stack.of(scope).toJsonString(secretArns),
    DEPLOYMENT_SECRET_ARN: state.deploymentSecret.secretArn,
    CONNECTION_TOKEN_KEY_ARN: state.connectionTokenKey.keyArn,
    // Each stream is due once per planner run unless told otherwise.
    POLL_INTERVAL: config.pollInterval ?? `${config.pollRateMinutes * 60}s`,
    INITIAL_SYNC: config.initialSync,
    // Subscribers in AWS must be public endpoints: no loopback, link-local or VPC ranges.
    WEBHOOK_ALLOW_PRIVATE: 'false',
    DELIVERY_TIMEOUT_MS: String(config.deliveryTimeoutMs),
    POWERTOOLS_SERVICE_NAME: config.serviceName,
    POWERTOOLS_METRICS_NAMESPACE: config.metricsNamespace,
    POWERTOOLS_LOG_LEVEL: 'INFO',
    ...Object.fromEntries(
      Object.entries(optional).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
  };
}
