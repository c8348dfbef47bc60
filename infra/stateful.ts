import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { type Archive, CfnArchive, EventBus } from 'aws-cdk-lib/aws-events';
import { Key } from 'aws-cdk-lib/aws-kms';
import { CfnSecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import {
  type DeadLetterQueue,
  DeduplicationScope,
  FifoThroughputLimit,
  Queue,
  QueueEncryption,
} from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { connectionSecretName } from '../shared/connector/connection-secrets.ts';
import { type ChangeBridgeConfig, publishesToSqs } from './props.ts';

/** SQS's longest retention (14 days): dead letters wait that long for a redrive. */
const DLQ_RETENTION = Duration.days(14);

/**
 * AWS recommends a visibility timeout of at least 6x the function timeout for Lambda SQS
 * event sources, so a message is not redelivered while a retried invocation still runs.
 */
export const VISIBILITY_TIMEOUT_FACTOR = 6;

/** What the runtime needs to know of the stateful construct. */
export interface ChangeBridgeStateProps {
  config: ChangeBridgeConfig;
}

/**
 * Everything that holds data and must outlive a redeploy of the code: the state table,
 * the event bus and its archive, the queues with their dead-letter queues, the data key,
 * and one credentials secret per connection. Nothing here is replaced by a code change.
 *
 * Webhook signing secrets are stored per subscription in the state table, which is
 * encrypted with the customer-managed {@link dataKey} and readable only by the bridge's
 * function roles: subscriptions are created at run time through the admin API, and a
 * Secrets Manager secret per subscription would add $0.40 a month each and a network
 * call on every delivery.
 */
export class ChangeBridgeState extends Construct {
  /** Customer-managed key (rotated yearly) encrypting the table and the internal queues. */
  readonly dataKey: Key;
  /** Single-table state store: `pk`/`sk` strings, TTL attribute `ttl`. */
  readonly table: Table;
  readonly bus: EventBus;
  /** The bus archive, when `eventArchive` is on (opt-in). */
  readonly archive: Archive | undefined;
  readonly pollJobQueue: Queue;
  readonly dispatchQueue: Queue;
  /**
   * The dispatcher's queue for bulk work's events (a first sync or backfill that emits), read
   * with fewer consumers, so live changes are not delivered behind a backlog of thousands.
   */
  readonly bulkDispatchQueue: Queue;
  /**
   * With FIFO dispatch queues (`dispatchQueueFifo`), where the dispatcher sends its delivery
   * messages (retries, deferrals, replays: each with its own delay, which FIFO queues lack).
   */
  readonly dispatchRetryQueue: Queue | undefined;
  /** Present when the poller publishes to SQS (`publishTargets` sqs or both). */
  readonly eventsQueue: Queue | undefined;
  /** Every dead-letter queue, by a readable name, for alarms and the dashboard. */
  readonly deadLetterQueues: ReadonlyMap<string, Queue>;
  /**
   * The KMS key that wraps the data keys of connection AccessTokens stored in the table
   * (envelope encryption: one GenerateDataKey per admin invocation, one Decrypt per poller
   * container). Apart from {@link dataKey}, so sealing and opening tokens is granted to the
   * functions that need it and to nothing that merely reads the table.
   */
  readonly connectionTokenKey: Key;
  /**
   * The deployment's one secret: `{ baseUrl, clientToken, client? }`, shared by every
   * connection stored as data. Created empty; the operator stores the value once.
   */
  readonly deploymentSecret: Secret;
  /** Connection id → its credentials secret. */
  readonly connectionSecrets: ReadonlyMap<string, Secret>;
  /** Connection id → the secret's name, `<secretNamePrefix>/connections/<id>`. */
  readonly connectionSecretNames: ReadonlyMap<string, string>;

  constructor(scope: Construct, id: string, props: ChangeBridgeStateProps) {
    super(scope, id);
    const { config } = props;

    this.dataKey = new Key(this, 'DataKey', {
      description: 'change-bridge: state table and internal queues',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Table, not TableV2: TableV2's KMS replica settings cannot synthesize in a
    // region-agnostic stack, and the construct must work in one.
    this.table = new Table(this, 'StateTable', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
      timeToLiveAttribute: 'ttl',
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: this.dataKey,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.bus = new EventBus(this, 'EventBus', {
      description: 'change-bridge change events (CloudEvents in detail)',
    });
    this.archive = config.eventArchive
      ? this.bus.archive('Archive', {
          description: 'Every change event, for replay',
          // Matches every event on the bus: account is set on all of them.
          eventPattern: { account: [Stack.of(this).account] },
          retention:
            config.archiveRetentionDays === 0
              ? undefined
              : Duration.days(config.archiveRetentionDays),
        })
      : undefined;
    // The archived events are data (what `aws events start-replay` replays): kept, as the table
    // and the queues are, when the stack is deleted or the archive turned off.
    this.archive?.applyRemovalPolicy(RemovalPolicy.RETAIN);
    // Without a key, aws-cdk-lib writes `KmsKeyIdentifier: ""` (aws/aws-cdk#37847): no key id,
    // and reported to fail deploys (GeneralServiceException) in some regions. Left out, the
    // archive uses an AWS-owned key.
    const cfnArchive = this.archive?.node.defaultChild;
    if (cfnArchive instanceof CfnArchive)
      cfnArchive.addPropertyDeletionOverride('KmsKeyIdentifier');

    const dlqs = new Map<string, Queue>();
    const internalQueue = (
      name: string,
      visibility: Duration,
      maxReceiveCount: number,
      fifo = false,
    ) => {
      // High-throughput FIFO: deduplication and the throughput limit per message group.
      const fifoProps = fifo
        ? {
            fifo: true,
            contentBasedDeduplication: false,
            deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
            fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
          }
        : {};
      const dlq = new Queue(this, `${name}DeadLetterQueue`, {
        ...(fifo ? { fifo: true } : {}),
        encryption: QueueEncryption.KMS,
        encryptionMasterKey: this.dataKey,
        enforceSSL: true,
        retentionPeriod: DLQ_RETENTION,
        removalPolicy: RemovalPolicy.RETAIN,
      });
      dlqs.set(name, dlq);
      const deadLetterQueue: DeadLetterQueue = { queue: dlq, maxReceiveCount };
      return new Queue(this, `${name}Queue`, {
        ...fifoProps,
        encryption: QueueEncryption.KMS,
        encryptionMasterKey: this.dataKey,
        // One data key serves 5 minutes of messages, keeping KMS calls (and cost) low.
        dataKeyReuse: Duration.minutes(5),
        enforceSSL: true,
        visibilityTimeout: visibility,
        retentionPeriod: DLQ_RETENTION,
        deadLetterQueue,
        removalPolicy: RemovalPolicy.RETAIN,
      });
    };

    // A poll job failing 3 times is parked; the planner enqueues a fresh one on its next run.
    this.pollJobQueue = internalQueue(
      'PollJob',
      Duration.seconds(config.pollerTimeoutSeconds * VISIBILITY_TIMEOUT_FACTOR),
      3,
    );
    // A retry or deferral is a new message (sent with a delay), never a message made invisible
    // again, so the retry schedule spends no receives: 10 counts only the failed receives of one
    // message (a crash, a storage or queue failure), 10 x the visibility timeout before the DLQ.
    const dispatchVisibility = Duration.seconds(
      config.dispatcherTimeoutSeconds * VISIBILITY_TIMEOUT_FACTOR,
    );
    const fifo = config.dispatchQueueFifo;
    this.dispatchQueue = internalQueue('Dispatch', dispatchVisibility, 10, fifo);
    this.bulkDispatchQueue = internalQueue('BulkDispatch', dispatchVisibility, 10, fifo);
    this.dispatchRetryQueue = fifo
      ? internalQueue('DispatchRetry', dispatchVisibility, 10)
      : undefined;
    this.eventsQueue = publishesToSqs(config) ? this.createEventsQueue(config, dlqs) : undefined;
    this.deadLetterQueues = dlqs;

    this.connectionTokenKey = new Key(this, 'ConnectionTokenKey', {
      description: 'change-bridge: wraps the data keys of stored connection AccessTokens',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.deploymentSecret = this.createEmptySecret(
      'DeploymentSecret',
      `${config.secretNamePrefix}/deployment`,
      'change-bridge deployment: JSON { baseUrl, clientToken, client? } shared by every connection',
    );

    const secrets = new Map<string, Secret>();
    const names = new Map<string, string>();
    for (const { id: connectionId, description } of config.connections) {
      const name = connectionSecretName(config.secretNamePrefix, connectionId);
      names.set(connectionId, name);
      secrets.set(connectionId, this.createConnectionSecret(connectionId, name, description));
    }
    this.connectionSecrets = secrets;
    this.connectionSecretNames = names;
  }

  /**
   * The events queue is read by downstream teams, so it uses SQS-managed encryption:
   * consumers need SQS permissions only, no grant on the data key.
   */
  private createEventsQueue(config: ChangeBridgeConfig, dlqs: Map<string, Queue>): Queue {
    const fifo = config.eventsQueueFifo;
    const dlq = new Queue(this, 'EventsDeadLetterQueue', {
      fifo: fifo || undefined,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DLQ_RETENTION,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    dlqs.set('Events', dlq);
    return new Queue(this, 'EventsQueue', {
      fifo: fifo || undefined,
      // The publisher sets MessageDeduplicationId to the event id: no content-based dedupe.
      contentBasedDeduplication: fifo ? false : undefined,
      // High-throughput FIFO, as the FIFO dispatch queues: the limit is per message group (one
      // entity), not 300 requests/s for the queue, which an emitting backfill would exceed. An
      // event id belongs to one entity, so deduplicating within its group drops the same events.
      ...(fifo
        ? {
            deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
            fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
          }
        : {}),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DLQ_RETENTION,
      deadLetterQueue: { queue: dlq, maxReceiveCount: 5 },
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /**
   * Creates the secret with no value (the `GenerateSecretString` the L2 adds is removed):
   * the user stores `{ baseUrl, clientToken, accessToken, client, portfolioScope? }` once,
   * and later deploys never overwrite it.
   */
  private createConnectionSecret(
    connectionId: string,
    secretName: string,
    description: string | undefined,
  ): Secret {
    return this.createEmptySecret(
      `Connection-${connectionId}`,
      secretName,
      description ??
        `change-bridge connection ${connectionId}: JSON { baseUrl, clientToken, accessToken, client, portfolioScope? }`,
    );
  }

  /** A retained secret with no value: later deploys never overwrite what the operator stored. */
  private createEmptySecret(id: string, secretName: string, description: string): Secret {
    const secret = new Secret(this, id, {
      secretName,
      description,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const cfnSecret = secret.node.defaultChild;
    if (!(cfnSecret instanceof CfnSecret)) throw new Error('Secret has no CfnSecret child');
    cfnSecret.addPropertyDeletionOverride('GenerateSecretString');
    return secret;
  }
}
