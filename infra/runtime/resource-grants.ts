import type { ITable, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { SUBSCRIPTIONS_PARTITION } from '../../shared/webhooks/dynamodb-webhook-keys.ts';

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
export function grantTableItems(fn: IGrantable, table: Table, access: 'read' | 'readWrite'): void {
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
export function denySubscriptionItems(fn: IGrantable, table: ITable): void {
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
export function grantSend(queue: IQueue | undefined, grantee: IGrantable): void {
  if (!queue) return;
  queue.grant(grantee, 'sqs:SendMessage');
  queue.encryptionMasterKey?.grant(grantee, 'kms:GenerateDataKey', 'kms:Decrypt');
}

/**
 * `events:ListRules`, to put on the bus only the events a rule matches. The action has no
 * resource-level permissions (IAM evaluates it against `*`); the call names the bus, and
 * it reveals rule names and patterns, nothing of the events.
 */
export function grantListRules(grantee: IGrantable): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({ actions: ['events:ListRules'], resources: ['*'] }),
  );
}
