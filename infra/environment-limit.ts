import { type CfnElement, type IResolvable, Stack, Token } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { CfnEventBus, type EventBus } from 'aws-cdk-lib/aws-events';
import type { Key } from 'aws-cdk-lib/aws-kms';
import { CfnSecret, type Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { CfnQueue, type Queue } from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';

/**
 * Lambda's limit on a function's environment variables, keys and values together; it measures
 * them as the JSON of the variables (`{"KEY":"value",…}`), as this file does.
 */
export const LAMBDA_ENVIRONMENT_MAX_BYTES = 4096;

/**
 * The longest values AWS gives what the stack leaves to deploy time (pseudo parameters,
 * generated names): the synth check here and the limits tests bound resolved values by them.
 */
export const LONGEST = {
  /** `aws-us-gov`. */
  partition: 10,
  /** `us-isof-south-1`. */
  region: 15,
  account: 12,
  /** `amazonaws.com.cn`. */
  urlSuffix: 16,
  /** SQS's longest queue name; a CloudFormation-generated one is cut to it. */
  queueName: 80,
  /** A KMS key id (a uuid). */
  keyId: 36,
  /** What Secrets Manager appends to a secret's name in its ARN: `-` and six characters. */
  secretSuffix: 7,
  /** What CloudFormation appends to a generated name: `-` and up to 13 characters. */
  generatedSuffix: 14,
  /** DynamoDB's longest table name. */
  tableName: 255,
} as const;

/**
 * The longest each token an environment holds can resolve to, registered as the environment
 * is built, so a function can refuse at synth an environment Lambda would refuse at deploy.
 */
export class ResolvedLengths {
  private readonly bounds = new Map<string, () => number>();

  /** The longest `value` can be once deployed; undefined for a token nobody registered. */
  longest(value: string): number | undefined {
    if (!Token.isUnresolved(value)) return JSON.stringify(value).length - 2;
    return this.bounds.get(value)?.();
  }

  /** `https://sqs.<region>.<url suffix>/<account>/<name>` */
  queueUrl(queue: Queue): string {
    return this.register(queue.queueUrl, () => {
      const { region, account } = this.where(queue);
      return 'https://sqs.../'.length + region + LONGEST.urlSuffix + account + 1 + queueName(queue);
    });
  }

  queueArn(queue: Queue): string {
    return this.register(queue.queueArn, () => this.arnPrefix(queue, 'sqs') + queueName(queue));
  }

  /** The table's name: its own, or `<stack>-<logical id>-<random>` as CloudFormation makes it. */
  tableName(table: Table): string {
    return this.register(table.tableName, () => {
      const stack = Stack.of(table);
      const logicalId = stack.resolve(stack.getLogicalId(table.node.defaultChild as CfnElement));
      return Math.min(
        LONGEST.tableName,
        stack.stackName.length + 1 + String(logicalId).length + LONGEST.generatedSuffix,
      );
    });
  }

  busName(bus: EventBus): string {
    return this.register(bus.eventBusName, () => {
      const cfn = bus.node.defaultChild;
      if (!(cfn instanceof CfnEventBus)) throw new Error('EventBus has no CfnEventBus');
      return literalLength(bus, cfn.name, 'event bus name');
    });
  }

  /** `arn:…:secretsmanager:<region>:<account>:secret:<name>-XXXXXX` */
  secretArn(secret: Secret): string {
    return this.register(secret.secretArn, () => {
      const cfn = secret.node.defaultChild;
      if (!(cfn instanceof CfnSecret)) throw new Error('Secret has no CfnSecret');
      const name = literalLength(secret, cfn.name, 'secret name');
      return (
        this.arnPrefix(secret, 'secretsmanager') + 'secret:'.length + name + LONGEST.secretSuffix
      );
    });
  }

  keyArn(key: Key): string {
    return this.register(
      key.keyArn,
      () => this.arnPrefix(key, 'kms') + 'key/'.length + LONGEST.keyId,
    );
  }

  private register(token: string, bound: () => number): string {
    this.bounds.set(token, bound);
    return token;
  }

  /** The stack's own region and account when it names them, else the longest. */
  private where(scope: IConstruct): { region: number; account: number } {
    const { region, account } = Stack.of(scope);
    return {
      region: Token.isUnresolved(region) ? LONGEST.region : region.length,
      account: Token.isUnresolved(account) ? LONGEST.account : account.length,
    };
  }

  /** `arn:<partition>:<service>:<region>:<account>:` */
  private arnPrefix(scope: IConstruct, service: string): number {
    const { region, account } = this.where(scope);
    return `arn::${service}:::`.length + LONGEST.partition + region + account;
  }
}

function queueName(queue: Queue): number {
  const cfn = queue.node.defaultChild;
  const name = cfn instanceof CfnQueue ? cfn.queueName : undefined;
  return typeof name === 'string' && !Token.isUnresolved(name) ? name.length : LONGEST.queueName;
}

/** The length of a name the stack sets itself (CDK may make it lazily: resolved here). */
function literalLength(
  scope: IConstruct,
  value: string | IResolvable | undefined,
  what: string,
): number {
  const resolved: unknown = Stack.of(scope).resolve(value);
  if (typeof resolved !== 'string') {
    throw new Error(`the ${what} is not known at synth: its length cannot be bounded`);
  }
  return resolved.length;
}

/**
 * Why Lambda would refuse `environment` (more than {@link LAMBDA_ENVIRONMENT_MAX_BYTES} bytes
 * as JSON once every token is resolved at its longest), naming its longest variables; an
 * empty list when it fits.
 */
export function environmentProblems(
  environment: Readonly<Record<string, string>>,
  lengths: ResolvedLengths,
): string[] {
  const sizes: [string, number][] = [];
  for (const [name, value] of Object.entries(environment)) {
    const longest = lengths.longest(value);
    if (longest === undefined) return [`environment variable ${name}: its length is not bounded`];
    sizes.push([name, JSON.stringify(name).length + ':""'.length + longest]);
  }
  // `{`, `}` and the commas between the entries.
  const bytes = 2 + Math.max(0, sizes.length - 1) + sizes.reduce((sum, [, size]) => sum + size, 0);
  if (bytes <= LAMBDA_ENVIRONMENT_MAX_BYTES) return [];
  const longest = sizes
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([name, size]) => `${name} (${size})`)
    .join(', ');
  return [
    `the environment can reach ${bytes} bytes once deployed, past Lambda's ${LAMBDA_ENVIRONMENT_MAX_BYTES}: shorten the props behind its longest variables, ${longest}`,
  ];
}
