import { join } from 'node:path';
import { Duration, Stack } from 'aws-cdk-lib';
import type { ITable, Table } from 'aws-cdk-lib/aws-dynamodb';
import {
  Effect,
  type IGrantable,
  PolicyStatement,
  Role,
  ServicePrincipal,
} from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SUBSCRIPTIONS_PARTITION } from '../shared/webhooks/dynamodb-webhook-keys.ts';
import { AdminHttpApi } from './admin-http-api.ts';
import { createBridgeFunction } from './bridge-function.ts';
import { ResolvedLengths } from './environment-limit.ts';
import {
  type ChangeBridgeConfig,
  DISPATCH_BATCH_SIZE,
  DISPATCH_BATCHING_WINDOW_SECONDS,
  FIFO_DISPATCH_BATCH_SIZE,
  plannerRateText,
  pollIntervalText,
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
    // The Scheduler invokes the planner asynchronously: the retry policy above covers only its
    // delivery to Lambda, and Lambda itself would retry a failed run twice (1 and 2 minutes on,
    // beside the next scheduled runs) and keep a throttled one up to 6 hours. Neither, here.
    this.planner.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });

    this.poller.addEventSource(
      new SqsEventSource(state.pollJobQueue, {
        batchSize: POLL_JOB_BATCH_SIZE,
        maxConcurrency: config.pollerMaxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    // A standard queue's batches: 16 records, gathered for up to a second. A FIFO queue's: 10
    // at most, with no batching window (Lambda's limits for FIFO).
    const standardBatches = {
      batchSize: DISPATCH_BATCH_SIZE,
      maxBatchingWindow: Duration.seconds(DISPATCH_BATCHING_WINDOW_SECONDS),
    };
    const dispatchBatches = config.dispatchQueueFifo
      ? { batchSize: FIFO_DISPATCH_BATCH_SIZE }
      : standardBatches;
    this.dispatcher.addEventSource(
      new SqsEventSource(state.dispatchQueue, {
        ...dispatchBatches,
        maxConcurrency: config.dispatcherMaxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    // Bulk work's events: the same function, fewer containers (it tells the lanes apart by
    // the records' source queue).
    this.dispatcher.addEventSource(
      new SqsEventSource(state.bulkDispatchQueue, {
        ...dispatchBatches,
        maxConcurrency: config.bulkDispatcherMaxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    // With FIFO dispatch queues, the delivery messages (retries, deferrals) on their own queue.
    if (state.dispatchRetryQueue)
      this.dispatcher.addEventSource(
        new SqsEventSource(state.dispatchRetryQueue, {
          ...standardBatches,
          maxConcurrency: config.dispatcherMaxConcurrency,
          reportBatchItemFailures: true,
        }),
      );

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
    const { table, bus, pollJobQueue, dispatchQueue, bulkDispatchQueue, eventsQueue } = state;

    // Planner: reads connections by page and stream states, enqueues one job per connection;
    // it writes nothing and never opens a token.
    grantTableItems(this.planner, table, 'read');
    grantSend(pollJobQueue, this.planner);

    // Poller: leases, snapshots and watermarks; publishes (the dispatch queue, the bus
    // behind its rules, the events queue); reads the credentials. It sends no poll job: a
    // window cut off by its timeout resumes from the cursor saved in the table.
    grantTableItems(this.poller, table, 'readWrite');
    grantSend(dispatchQueue, this.poller);
    grantSend(bulkDispatchQueue, this.poller);
    bus.grantPutEventsTo(this.poller);
    grantListRules(this.poller);
    grantSend(eventsQueue, this.poller);
    for (const secret of state.connectionSecrets.values()) secret.grantRead(this.poller);
    // Stored connections: the deployment's endpoint and ClientToken, and their sealed tokens.
    state.deploymentSecret.grantRead(this.poller);
    state.connectionTokenKey.grantDecrypt(this.poller);

    // Neither reads a subscription: their grants stop short of the signing secrets.
    denySubscriptionItems(this.planner, table);
    denySubscriptionItems(this.poller, table);

    // Dispatcher: subscriptions and delivery log; re-enqueues retries on its own queue;
    // publishes operational events (subscription.disabled, delivery.failing).
    grantTableItems(this.dispatcher, table, 'readWrite');
    grantSend(dispatchQueue, this.dispatcher);
    grantSend(state.dispatchRetryQueue, this.dispatcher);
    bus.grantPutEventsTo(this.dispatcher);

    // Admin API: manages subscriptions and streams, replays events, starts backfills (state the
    // planner picks up: it sends no poll job); its connector proxy writes with the connection's
    // credentials and publishes like the poller.
    grantTableItems(this.adminFunction, table, 'readWrite');
    grantSend(dispatchQueue, this.adminFunction);
    grantSend(state.dispatchRetryQueue, this.adminFunction);
    grantSend(bulkDispatchQueue, this.adminFunction);
    bus.grantPutEventsTo(this.adminFunction);
    grantListRules(this.adminFunction);
    grantSend(eventsQueue, this.adminFunction);
    for (const secret of state.connectionSecrets.values()) secret.grantRead(this.adminFunction);
    // Its proxy writes through stored connections too: their endpoint and ClientToken.
    state.deploymentSecret.grantRead(this.adminFunction);
    // `connections add` seals a token under a new data key (GenerateDataKey); README lets the
    // admin API open one too (Decrypt): the two calls of KmsDataKeyProvider, nothing more.
    state.connectionTokenKey.grant(this.adminFunction, 'kms:GenerateDataKey', 'kms:Decrypt');
  }
}

/** The context key of the ARN length CDK assumes for each token when it sizes a role's policy. */
const ARN_SIZE_ESTIMATE_CONTEXT_KEY = '@aws-cdk/aws-iam.arnSizeEstimate';
/** CDK's own assumption, kept while every ARN here is shorter. */
const DEFAULT_ARN_SIZE_ESTIMATE = 150;
/** `arn:<partition>:<service>:<region>:<account>:` at the longest (aws-us-gov, us-isof-south-1). */
const LONGEST_ARN_PREFIX = 'arn:aws-us-gov:secretsmanager:us-isof-south-1:123456789012:'.length;
/** The longest connection id props take. */
const LONGEST_CONNECTION_ID = 40;
/** The longest logical id assumed of a resource here, in a generated name. */
const LONGEST_LOGICAL_ID = 64;

/**
 * The ARN length each role sizes its policies by. A role moves statements past 10,000
 * characters of its inline policy into managed policies, sizing each token (an ARN resolved
 * at deploy) as 150 characters; a connection secret's ARN is up to 326 (a 200-character
 * prefix), so 20 of them made the poller's and admin function's policies pass IAM's 10,240
 * characters for a role's inline policies while CDK counted under 10,000. The estimate is
 * the longest ARN the policies hold: a connection secret's, or one of a name CloudFormation
 * generates (`<stack>-<logical id>-<random>`: log groups, the table with its `/index/*`).
 */
function policyArnEstimate(scope: Construct, config: ChangeBridgeConfig): number {
  const secret =
    LONGEST_ARN_PREFIX +
    'secret:'.length +
    `${config.secretNamePrefix}/connections/`.length +
    LONGEST_CONNECTION_ID +
    '-XXXXXX'.length;
  const generated =
    LONGEST_ARN_PREFIX +
    'log-group:'.length +
    Stack.of(scope).stackName.length +
    LONGEST_LOGICAL_ID +
    '--XXXXXXXXXXXXX:*'.length;
  return Math.max(DEFAULT_ARN_SIZE_ESTIMATE, secret, generated);
}

/** The item calls the stores make (GetItem, BatchGetItem, Query; and the writes). */
const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

/**
 * The table actions the code makes, and its key's, as grantReadData and grantReadWriteData give
 * them but for what no store calls: `Scan` (it would read every guest record and signing secret
 * at once), stream reads (the table has no stream), `DescribeTable` and `ConditionCheckItem`
 * (no transactions).
 */
function grantTableItems(fn: IGrantable, table: Table, access: 'read' | 'readWrite'): void {
  const write = access === 'readWrite';
  table.grant(fn, ...TABLE_READ_ACTIONS, ...(write ? TABLE_WRITE_ACTIONS : []));
  table.encryptionKey?.grant(
    fn,
    'kms:Decrypt',
    'kms:DescribeKey',
    ...(write ? ['kms:Encrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*'] : []),
  );
}

/**
 * The subscriptions' partition (`SUBS`, where the `whsec_` signing secrets are) is denied to a
 * function whose table grant would otherwise reach it: key reads and writes whose partition key
 * is `SUBS` (`dynamodb:LeadingKeys`), and `Scan`, which names no key (the bridge never scans).
 */
function denySubscriptionItems(fn: IGrantable, table: ITable): void {
  fn.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      effect: Effect.DENY,
      actions: [
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:Query',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:ConditionCheckItem',
      ],
      resources: [table.tableArn],
      conditions: {
        'ForAnyValue:StringEquals': { 'dynamodb:LeadingKeys': [SUBSCRIPTIONS_PARTITION] },
      },
    }),
  );
  fn.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      effect: Effect.DENY,
      actions: ['dynamodb:Scan'],
      resources: [table.tableArn, `${table.tableArn}/index/*`],
    }),
  );
}

/**
 * Lets `grantee` send to `queue` (when there is one) and nothing more: `sqs:SendMessage`, which
 * covers SendMessageBatch (the URLs come from the environment: no GetQueueUrl, and nothing reads
 * the queue's attributes), and on a KMS-encrypted queue the two key calls SQS makes for a
 * producer, `kms:GenerateDataKey` and `kms:Decrypt`. `grantSendMessages` adds `kms:Encrypt`,
 * `kms:ReEncrypt*` and `kms:GenerateDataKey*` on the data key too, which also guards the table.
 */
function grantSend(queue: IQueue | undefined, grantee: IGrantable): void {
  if (!queue) return;
  queue.grant(grantee, 'sqs:SendMessage');
  queue.encryptionMasterKey?.grant(grantee, 'kms:GenerateDataKey', 'kms:Decrypt');
}

/**
 * `events:ListRules`, to put on the bus only the events a rule matches. The action has no
 * resource-level permissions (IAM evaluates it against `*`); the call names the bus, and
 * it reveals rule names and patterns, nothing of the events.
 */
function grantListRules(grantee: IGrantable): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({ actions: ['events:ListRules'], resources: ['*'] }),
  );
}

/**
 * The environment every handler reads (names fixed by the handlers' zod schemas). Each value
 * the stack resolves at deploy time goes through `lengths`, which bounds it for the check
 * against Lambda's 4 KB.
 */
function bridgeEnvironment(
  config: ChangeBridgeConfig,
  state: ChangeBridgeState,
  lengths: ResolvedLengths,
): Record<string, string> {
  const connectionIds = [...state.connectionSecrets.keys()];
  const optional: Record<string, string | undefined> = {
    // The props' connections and their secrets' names (`<prefix>/connections/<id>`): an ARN per
    // connection would not fit Lambda's 4 KB for 20 connections of long ids.
    CONNECTION_IDS: connectionIds.length > 0 ? connectionIds.join(',') : undefined,
    CONNECTION_SECRET_PREFIX: connectionIds.length > 0 ? config.secretNamePrefix : undefined,
    PUBLISH_QUEUE_URL: state.eventsQueue && lengths.queueUrl(state.eventsQueue),
    // Where the dispatcher sends delivery messages when the dispatch queues are FIFO.
    DISPATCH_RETRY_QUEUE_URL:
      state.dispatchRetryQueue && lengths.queueUrl(state.dispatchRetryQueue),
    POLL_OVERLAP: config.pollOverlap,
    POLL_SETTLE_LAG: config.pollSettleLag,
    POLL_ENTITIES: config.pollEntities?.join(','),
    POLL_EXPORT_IDS: config.pollExportIds?.join(','),
    POLL_PRODUCT_IDS: config.pollProductIds?.join(','),
  };
  return {
    STATE_TABLE_NAME: lengths.tableName(state.table),
    EVENT_BUS_NAME: lengths.busName(state.bus),
    EVENT_SOURCE: config.eventSource,
    POLL_JOB_QUEUE_URL: lengths.queueUrl(state.pollJobQueue),
    DISPATCH_QUEUE_URL: lengths.queueUrl(state.dispatchQueue),
    // Bulk work's events go here (publisher), and the dispatcher knows its batches by the ARN.
    BULK_DISPATCH_QUEUE_URL: lengths.queueUrl(state.bulkDispatchQueue),
    BULK_DISPATCH_QUEUE_ARN: lengths.queueArn(state.bulkDispatchQueue),
    PUBLISH_TARGETS: config.publishTargets,
    // The poller's publisher reads the PUBLISH_* names (shared/publish/publisher-config.ts).
    PUBLISH_EVENT_BUS_NAME: lengths.busName(state.bus),
    PUBLISH_EVENT_SOURCE: config.eventSource,
    // With the archive on, every event goes to the bus (the archive keeps them all).
    PUBLISH_EVENT_BUS_MODE: config.eventArchive ? 'all' : config.eventBusMode,
    DEPLOYMENT_SECRET_ARN: lengths.secretArn(state.deploymentSecret),
    CONNECTION_TOKEN_KEY_ARN: lengths.keyArn(state.connectionTokenKey),
    // Each stream is due once per planner run unless told otherwise.
    POLL_INTERVAL: pollIntervalText(config),
    INITIAL_SYNC: config.initialSync,
    // Per-stream watermark ages (a custom metric each): see the streamMetrics prop.
    STREAM_METRICS: config.streamMetrics ? 'true' : 'false',
    // Subscribers in AWS must be public endpoints: no loopback, link-local or VPC ranges.
    WEBHOOK_ALLOW_PRIVATE: 'false',
    DELIVERY_TIMEOUT_MS: String(config.deliveryTimeoutMs),
    WEBHOOK_FAILING_AFTER: String(config.endpointFailingAfter),
    WEBHOOK_DISABLE_AFTER: config.endpointDisableAfter,
    POWERTOOLS_SERVICE_NAME: config.serviceName,
    POWERTOOLS_METRICS_NAMESPACE: config.metricsNamespace,
    POWERTOOLS_LOG_LEVEL: 'INFO',
    ...Object.fromEntries(
      Object.entries(optional).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
  };
}
