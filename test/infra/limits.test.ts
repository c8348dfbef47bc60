import { type App, Stack } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeBridge } from '../../infra/change-bridge.ts';
import { createChangeBridgeApp } from '../../infra/create-app.ts';
import { ENTITY_TYPES } from '../../shared/changes/entity-types.ts';
import {
  type Assembly,
  longestEnvironment,
  longestJson,
  type TemplateJson,
} from './resolved-size.ts';
import { createFunctionsFixture } from './synth-fixture.ts';

/** Lambda's limit on a function's environment variables, keys and values together. */
const LAMBDA_ENVIRONMENT_BYTES = 4096;

/** IAM's limits, counted without whitespace: a role's inline policies together, a managed policy. */
const ROLE_INLINE_POLICY_CHARACTERS = 10_240;
const MANAGED_POLICY_CHARACTERS = 6_144;
/** Managed policies attached to one role without a quota increase. */
const MANAGED_POLICIES_PER_ROLE = 10;

const fixture = createFunctionsFixture();

/** As many connections as props take (20), each with the longest id they take (40). */
const CONNECTIONS = Array.from({ length: 20 }, (_, index) => ({
  id: `hotel-${String(index).padStart(2, '0')}-${'x'.repeat(31)}`,
}));
/** The longest stage the app takes (20): its stacks are `ChangeBridge-<stage>-Stateful`, … */
const STAGE = 'a'.repeat(20);
/** Every optional queue and variable the runtime sets, at its longest. */
const EXTREME_PROPS = {
  connections: CONNECTIONS,
  secretNamePrefix: 'p'.repeat(200),
  publishTargets: 'both' as const,
  eventsQueueFifo: true,
  dispatchQueueFifo: true,
  eventArchive: true,
  alarmEmail: 'ops@example.com',
  // The longest timeouts and the most concurrency props take.
  pollerTimeoutSeconds: 900,
  dispatcherTimeoutSeconds: 900,
  deliveryTimeoutMs: 30_000,
  pollerMaxConcurrency: 1000,
  dispatcherMaxConcurrency: 1000,
  bulkDispatcherMaxConcurrency: 1000,
  archiveRetentionDays: 3650,
};

let app: Assembly;
let embedded: Assembly;

function assemblyOf(cdkApp: App): Assembly {
  const stacks = new Map<string, TemplateJson>();
  for (const stack of cdkApp.synth().stacks) stacks.set(stack.stackName, stack.template);
  return { stacks };
}

/** Each Lambda function of the assembly: its stack, logical id and environment variables. */
function functionsOf(assembly: Assembly) {
  return [...assembly.stacks].flatMap(([stackName, template]) =>
    Object.entries(template.Resources ?? {})
      .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
      .map(([logicalId, resource]) => {
        const environment = resource.Properties?.Environment as { Variables: object };
        return {
          stackName,
          logicalId,
          variables: environment.Variables as Record<string, unknown>,
        };
      }),
  );
}

beforeAll(() => {
  // The bundled app: two stacks, the runtime importing the stateful stack's exports.
  const cdkApp = fixture.app({
    stage: STAGE,
    functionsDir: fixture.functionsDir,
    changeBridge: { [STAGE]: { ...EXTREME_PROPS, terminationProtection: false } },
  });
  createChangeBridgeApp(cdkApp, {});
  app = assemblyOf(cdkApp);
  // The construct in a stack of the longest name CloudFormation takes (128).
  const host = fixture.app();
  const stack = new Stack(host, `S${'x'.repeat(127)}`);
  new ChangeBridge(stack, 'Bridge', { ...EXTREME_PROPS, functionsDir: fixture.functionsDir });
  embedded = assemblyOf(host);
}, 120_000);

afterAll(() => fixture.remove());

describe('Lambda environment at the extreme props allow', () => {
  it('keeps every function of the app within 4 KB at 20 connections of 40-character ids', () => {
    const functions = functionsOf(app);
    expect(functions).toHaveLength(4);
    for (const { stackName, logicalId, variables } of functions) {
      const bytes = longestEnvironment(app, stackName, variables);
      expect({ logicalId, bytes }).toEqual({
        logicalId,
        bytes: expect.toSatisfy((n: number) => n <= LAMBDA_ENVIRONMENT_BYTES),
      });
    }
  });

  it('keeps every function of the construct within 4 KB in a stack of the longest name', () => {
    const functions = functionsOf(embedded);
    expect(functions.length).toBeGreaterThanOrEqual(4);
    for (const { stackName, logicalId, variables } of functions) {
      const bytes = longestEnvironment(embedded, stackName, variables);
      expect({ logicalId, bytes }).toEqual({
        logicalId,
        bytes: expect.toSatisfy((n: number) => n <= LAMBDA_ENVIRONMENT_BYTES),
      });
    }
  });

  it('refuses at synth a stage whose environment can pass 4 KB, naming its longest variables', () => {
    // 60 tracked products: about 3.8 KB of POLL_PRODUCT_IDS, which CloudFormation would only
    // have refused at deploy, after the stateful stack.
    const products = Array.from(
      { length: 60 },
      (_, index) =>
        `${crypto.randomUUID().slice(0, -2)}${String(index).padStart(2, '0')}@America/Argentina/Buenos_Aires`,
    );
    const cdkApp = fixture.app({
      stage: 'prod',
      functionsDir: fixture.functionsDir,
      changeBridge: { prod: { pollProductIds: products, terminationProtection: false } },
    });
    createChangeBridgeApp(cdkApp, {});
    expect(() => cdkApp.synth()).toThrow(
      /can reach \d+ bytes once deployed, past Lambda's 4096: .*POLL_PRODUCT_IDS \(\d+\)/,
    );
  });

  it('refuses the longest value of every string prop at once, which passes 4 KB too', () => {
    // 4,170 bytes at the longest: 20 connections, a 200-character secret prefix, a 256-character
    // event source, a 255-character metrics namespace and every entity type.
    const cdkApp = fixture.app({
      stage: STAGE,
      functionsDir: fixture.functionsDir,
      changeBridge: {
        [STAGE]: {
          ...EXTREME_PROPS,
          eventSource: 's'.repeat(256),
          metricsNamespace: 'm'.repeat(255),
          pollEntities: [...ENTITY_TYPES],
          terminationProtection: false,
        },
      },
    });
    createChangeBridgeApp(cdkApp, {});
    expect(() => cdkApp.synth()).toThrow(/past Lambda's 4096/);
  });
});

/** Each role of the assembly with the longest its inline policies (together) and managed ones get. */
function rolePolicySizes(assembly: Assembly) {
  return [...assembly.stacks].flatMap(([stackName, template]) => {
    const resources = Object.entries(template.Resources ?? {});
    const sizeOf = (document: unknown) => longestJson(assembly, stackName, document);
    return resources
      .filter(([, resource]) => resource.Type === 'AWS::IAM::Role')
      .map(([roleId, role]) => {
        const own = (role.Properties?.Policies ?? []) as { PolicyDocument: unknown }[];
        const attached = (type: string) =>
          resources
            .filter(([, policy]) => policy.Type === type)
            .filter(([, policy]) =>
              JSON.stringify(policy.Properties?.Roles).includes(`"${roleId}"`),
            )
            .map(([, policy]) => sizeOf(policy.Properties?.PolicyDocument));
        const inline = [
          ...own.map((policy) => sizeOf(policy.PolicyDocument)),
          ...attached('AWS::IAM::Policy'),
        ];
        return {
          roleId,
          inline: inline.reduce((a, b) => a + b, 0),
          managed: attached('AWS::IAM::ManagedPolicy'),
        };
      });
  });
}

describe('IAM policy sizes at the extreme props allow', () => {
  it.each([
    ['the app', () => app],
    ['the construct in a stack of the longest name', () => embedded],
  ])('keeps every role of %s within IAM limits with 20 connection secrets', (_, assembly) => {
    const roles = rolePolicySizes(assembly());
    expect(roles.length).toBeGreaterThanOrEqual(5);
    for (const { roleId, inline, managed } of roles) {
      expect({ roleId, inline }).toEqual({
        roleId,
        inline: expect.toSatisfy((n: number) => n <= ROLE_INLINE_POLICY_CHARACTERS),
      });
      expect({ roleId, managed }).toEqual({
        roleId,
        managed: expect.toSatisfy(
          (sizes: number[]) =>
            sizes.length <= MANAGED_POLICIES_PER_ROLE &&
            sizes.every((n) => n <= MANAGED_POLICY_CHARACTERS),
        ),
      });
    }
  });
});

/** CloudFormation's quotas: a template body from S3, resources, outputs, parameters. */
const TEMPLATE_BODY_BYTES = 1_000_000;
const RESOURCES_PER_STACK = 500;
const OUTPUTS_PER_STACK = 200;
const PARAMETERS_PER_STACK = 200;
/** SQS: the longest visibility timeout and retention. */
const MAX_VISIBILITY_SECONDS = 43_200;
const MAX_RETENTION_SECONDS = 1_209_600;

/**
 * The queue behind an event source's or a redrive policy's ARN, through an export if need be,
 * with the stack that holds it.
 */
function queueOf(
  assembly: Assembly,
  stackName: string,
  arn: unknown,
): { stackName: string; properties: Record<string, unknown> } {
  const value = arn as Record<string, unknown>;
  const imported = value['Fn::ImportValue'];
  if (typeof imported === 'string') {
    for (const [name, template] of assembly.stacks) {
      const output = Object.values(template.Outputs ?? {}).find((o) => o.Export?.Name === imported);
      if (output) return queueOf(assembly, name, output.Value);
    }
  }
  const [logicalId] = value['Fn::GetAtt'] as [string, string];
  const queue = assembly.stacks.get(stackName)?.Resources?.[logicalId];
  if (queue?.Type !== 'AWS::SQS::Queue') throw new Error(`no queue behind ${JSON.stringify(arn)}`);
  return { stackName, properties: queue.Properties ?? {} };
}

describe('CloudFormation, SQS and Lambda limits at the extreme props allow', () => {
  it.each([
    ['the app', () => app],
    ['the construct in a stack of the longest name', () => embedded],
  ])('keeps each stack of %s within CloudFormation quotas', (_, assembly) => {
    for (const [stackName, template] of assembly().stacks) {
      const quotas = {
        stackName,
        // As cdk.out holds it: the CLI uploads a body past 51,200 bytes to S3 (up to 1 MB).
        bodyBytes: Buffer.byteLength(JSON.stringify(template, undefined, 1)),
        resources: Object.keys(template.Resources ?? {}).length,
        outputs: Object.keys(template.Outputs ?? {}).length,
        parameters: Object.keys((template as { Parameters?: object }).Parameters ?? {}).length,
      };
      expect(quotas).toEqual({
        stackName,
        bodyBytes: expect.toSatisfy((n: number) => n <= TEMPLATE_BODY_BYTES),
        resources: expect.toSatisfy((n: number) => n <= RESOURCES_PER_STACK),
        outputs: expect.toSatisfy((n: number) => n <= OUTPUTS_PER_STACK),
        parameters: expect.toSatisfy((n: number) => n <= PARAMETERS_PER_STACK),
      });
    }
  });

  it.each([
    ['the app', () => app],
    ['the construct in a stack of the longest name', () => embedded],
  ])('sets every SQS event source of %s within what SQS and Lambda take', (_, assembly) => {
    let mappings = 0;
    for (const [stackName, template] of assembly().stacks) {
      const resources = template.Resources ?? {};
      for (const mapping of Object.values(resources)) {
        if (mapping.Type !== 'AWS::Lambda::EventSourceMapping') continue;
        mappings += 1;
        const p = mapping.Properties ?? {};
        const fnId = (p.FunctionName as { Ref: string }).Ref;
        const timeout = Number(resources[fnId]?.Properties?.Timeout);
        const source = queueOf(assembly(), stackName, p.EventSourceArn);
        const queue = source.properties;
        const batchSize = Number(p.BatchSize);
        const window = Number(p.MaximumBatchingWindowInSeconds ?? 0);
        const concurrency = Number(
          (p.ScalingConfig as { MaximumConcurrency?: number }).MaximumConcurrency,
        );
        // AWS recommends a visibility timeout of six function timeouts; SQS takes up to 12 h.
        expect(Number(queue.VisibilityTimeout)).toBeGreaterThanOrEqual(6 * timeout);
        expect(Number(queue.VisibilityTimeout)).toBeLessThanOrEqual(MAX_VISIBILITY_SECONDS);
        // FIFO: at most 10 records and no batching window; standard: a window past 10.
        if (queue.FifoQueue) expect([batchSize, window]).toEqual([batchSize, 0]);
        if (queue.FifoQueue) expect(batchSize).toBeLessThanOrEqual(10);
        else if (batchSize > 10) expect(window).toBeGreaterThanOrEqual(1);
        expect(concurrency).toBeGreaterThanOrEqual(2);
        expect(concurrency).toBeLessThanOrEqual(1000);
        expect(p.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
        // The redrive: a receive count SQS takes, to a dead-letter queue of the same kind.
        const redrive = queue.RedrivePolicy as {
          deadLetterTargetArn: unknown;
          maxReceiveCount: number;
        };
        expect(redrive.maxReceiveCount).toBeGreaterThanOrEqual(1);
        expect(redrive.maxReceiveCount).toBeLessThanOrEqual(1000);
        const dlq = queueOf(assembly(), source.stackName, redrive.deadLetterTargetArn).properties;
        expect(Boolean(dlq.FifoQueue)).toBe(Boolean(queue.FifoQueue));
        expect(Number(dlq.MessageRetentionPeriod)).toBeLessThanOrEqual(MAX_RETENTION_SECONDS);
        expect(Number(dlq.MessageRetentionPeriod)).toBeGreaterThanOrEqual(
          Number(queue.MessageRetentionPeriod ?? 345_600),
        );
      }
    }
    // The poll jobs, the two dispatch queues and the retry queue beside FIFO ones.
    expect(mappings).toBe(4);
  });
});
