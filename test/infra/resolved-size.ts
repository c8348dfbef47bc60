/**
 * The longest each CloudFormation value of a synthesized template can be once deployed: the
 * intrinsics the stacks use (Ref, Fn::GetAtt, Fn::ImportValue, Fn::Join, Fn::Select over
 * Fn::Split of a literal) resolved to strings of the longest length AWS gives them, so a
 * test can bound what Lambda or IAM measures at deploy time (the 4 KB of a function's
 * environment, the 10,240 characters of a role's inline policies) without deploying.
 */

import { LONGEST } from '../../infra/environment-limit.ts';

/** One stack's template, as synthesized. */
export interface TemplateJson {
  Resources?: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  Outputs?: Record<string, { Value: unknown; Export?: { Name: unknown } }>;
}

/** The templates of an app, by stack name, so Fn::ImportValue finds its export. */
export interface Assembly {
  stacks: ReadonlyMap<string, TemplateJson>;
}

/** The longest length a value can resolve to. */
export type Bound = number;

/**
 * The longest the CloudFormation value `value` of stack `stackName` can be once resolved.
 * @throws Error for an intrinsic or a resource attribute it does not know: the bound would be
 * a guess, so a new one must be taught here.
 */
export function longestValue(
  assembly: Assembly,
  stackName: string,
  value: unknown,
  asJsonString = false,
): Bound {
  // Inside a JSON string (`asJsonString`) a literal's quotes and backslashes are escaped; the
  // values resolved here (names, ARNs, URLs) have neither.
  if (typeof value === 'string')
    return asJsonString ? JSON.stringify(value).length - 2 : value.length;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).length;
  if (value === null || typeof value !== 'object') throw new Error(`unknown value ${value}`);
  const [key, arg] = Object.entries(value)[0] ?? [];
  const template = templateOf(assembly, stackName);
  switch (key) {
    case 'Ref':
      return longestRef(template, stackName, String(arg));
    case 'Fn::GetAtt': {
      const [logicalId, attribute] = arg as [string, string];
      return longestAttribute(template, stackName, logicalId, attribute);
    }
    case 'Fn::ImportValue':
      return longestImport(assembly, String(literal(arg)));
    case 'Fn::Join': {
      const [separator, parts] = arg as [string, unknown[]];
      const lengths = parts.map((part) => longestValue(assembly, stackName, part, asJsonString));
      const separators = longestValue(assembly, stackName, separator, asJsonString);
      return sum(lengths) + separators * Math.max(0, parts.length - 1);
    }
    case 'Fn::Select': {
      // Only a part of a value split on a character: at most the whole value.
      const [, list] = arg as [number, unknown];
      const split = (list as Record<string, unknown>)['Fn::Split'] as [string, unknown];
      if (!split) throw new Error(`Fn::Select over ${JSON.stringify(list)}`);
      return longestValue(assembly, stackName, split[1], asJsonString);
    }
    default:
      throw new Error(`no bound for ${JSON.stringify(value)}`);
  }
}

function templateOf(assembly: Assembly, stackName: string): TemplateJson {
  const template = assembly.stacks.get(stackName);
  if (!template) throw new Error(`no stack ${stackName}`);
  return template;
}

function literal(value: unknown): unknown {
  if (typeof value === 'string') return value;
  throw new Error(`Fn::ImportValue of ${JSON.stringify(value)}`);
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function longestImport(assembly: Assembly, exportName: string): Bound {
  for (const [stackName, template] of assembly.stacks) {
    for (const output of Object.values(template.Outputs ?? {})) {
      if (output.Export?.Name === exportName)
        return longestValue(assembly, stackName, output.Value);
    }
  }
  throw new Error(`no export ${exportName}`);
}

const PSEUDO: Record<string, number> = {
  'AWS::Partition': LONGEST.partition,
  'AWS::Region': LONGEST.region,
  'AWS::AccountId': LONGEST.account,
  'AWS::URLSuffix': LONGEST.urlSuffix,
};

function resourceOf(template: TemplateJson, logicalId: string) {
  const resource = template.Resources?.[logicalId];
  if (!resource) throw new Error(`no resource ${logicalId}`);
  return resource;
}

/** `arn:<partition>:<service>:<region>:<account>:` */
function arnPrefix(service: string): number {
  return `arn::${service}:::`.length + LONGEST.partition + LONGEST.region + LONGEST.account;
}

/** A name CloudFormation generates: `<stack>-<logical id>-<random>`, cut to `max`. */
function generatedName(stackName: string, logicalId: string, max: number): number {
  return Math.min(max, stackName.length + 1 + logicalId.length + LONGEST.generatedSuffix);
}

function longestQueueName(
  stackName: string,
  logicalId: string,
  properties: Record<string, unknown>,
) {
  const name = properties.QueueName;
  return typeof name === 'string'
    ? name.length
    : generatedName(stackName, logicalId, LONGEST.queueName);
}

function longestRef(template: TemplateJson, stackName: string, ref: string): Bound {
  if (ref === 'AWS::StackName') return stackName.length;
  const pseudo = PSEUDO[ref];
  if (pseudo !== undefined) return pseudo;
  const resource = resourceOf(template, ref);
  const properties = resource.Properties ?? {};
  switch (resource.Type) {
    case 'AWS::SQS::Queue':
      // The queue's URL: https://sqs.<region>.<url suffix>/<account>/<name>
      return (
        'https://sqs.../'.length +
        LONGEST.region +
        LONGEST.urlSuffix +
        LONGEST.account +
        '/'.length +
        longestQueueName(stackName, ref, properties)
      );
    case 'AWS::DynamoDB::Table': {
      const name = properties.TableName;
      return typeof name === 'string'
        ? name.length
        : generatedName(stackName, ref, LONGEST.tableName);
    }
    case 'AWS::Events::EventBus':
      return String(properties.Name).length;
    case 'AWS::SecretsManager::Secret': {
      const name = properties.Name;
      if (typeof name !== 'string') throw new Error(`secret ${ref} has no literal name`);
      return arnPrefix('secretsmanager') + 'secret:'.length + name.length + LONGEST.secretSuffix;
    }
    case 'AWS::KMS::Key':
      return LONGEST.keyId;
    default:
      throw new Error(`no bound for Ref of ${resource.Type} ${ref}`);
  }
}

function longestAttribute(
  template: TemplateJson,
  stackName: string,
  logicalId: string,
  attribute: string,
): Bound {
  const resource = resourceOf(template, logicalId);
  const properties = resource.Properties ?? {};
  const key = `${resource.Type}.${attribute}`;
  switch (key) {
    case 'AWS::SQS::Queue.Arn':
      return arnPrefix('sqs') + longestQueueName(stackName, logicalId, properties);
    case 'AWS::SQS::Queue.QueueName':
      return longestQueueName(stackName, logicalId, properties);
    case 'AWS::KMS::Key.Arn':
      return arnPrefix('kms') + 'key/'.length + LONGEST.keyId;
    case 'AWS::DynamoDB::Table.Arn':
      return arnPrefix('dynamodb') + 'table/'.length + longestRef(template, stackName, logicalId);
    case 'AWS::Events::EventBus.Arn':
      return arnPrefix('events') + 'event-bus/'.length + String(properties.Name).length;
    case 'AWS::Events::EventBus.Name':
      return String(properties.Name).length;
    case 'AWS::Logs::LogGroup.Arn': {
      // arn:…:logs:<region>:<account>:log-group:<name>:*
      const name = properties.LogGroupName;
      const length =
        typeof name === 'string' ? name.length : generatedName(stackName, logicalId, 512);
      return arnPrefix('logs') + 'log-group:'.length + length + ':*'.length;
    }
    case 'AWS::Lambda::Function.Arn': {
      const name = properties.FunctionName;
      const length =
        typeof name === 'string' ? name.length : generatedName(stackName, logicalId, 64);
      return arnPrefix('lambda') + 'function:'.length + length;
    }
    default:
      throw new Error(`no bound for ${key} of ${logicalId}`);
  }
}

/**
 * The longest a function's environment can be as Lambda measures it, bounded by its JSON
 * (`{"KEY":"value",…}`), which is longer than the keys and values alone.
 */
export function longestEnvironment(
  assembly: Assembly,
  stackName: string,
  variables: Record<string, unknown>,
): Bound {
  const entries = Object.entries(variables).map(
    ([key, value]) =>
      JSON.stringify(key).length + ':""'.length + longestValue(assembly, stackName, value, true),
  );
  return 2 + sum(entries) + Math.max(0, entries.length - 1);
}

/**
 * The longest JSON of `value` (a policy document, say) once its intrinsics are resolved, with
 * no whitespace: how IAM counts a policy's size.
 */
export function longestJson(assembly: Assembly, stackName: string, value: unknown): Bound {
  if (Array.isArray(value)) {
    const items = value.map((item) => longestJson(assembly, stackName, item));
    return 2 + sum(items) + Math.max(0, items.length - 1);
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    const [first] = entries;
    if (entries.length === 1 && first && (first[0] === 'Ref' || first[0].startsWith('Fn::'))) {
      return 2 + longestValue(assembly, stackName, value, true);
    }
    const sizes = entries.map(
      ([key, item]) => JSON.stringify(key).length + 1 + longestJson(assembly, stackName, item),
    );
    return 2 + sum(sizes) + Math.max(0, sizes.length - 1);
  }
  return JSON.stringify(value).length;
}
