import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readAdminApiEnv } from '../../functions/admin-api.ts';
import { readPollLambdaEnv } from '../../functions/poll-env.ts';
import { createChangeBridgeApp } from '../../infra/create-app.ts';
import { parsePublisherConfig } from '../../shared/publish/publisher-config.ts';
import { createFunctionsFixture } from './synth-fixture.ts';

const fixture = createFunctionsFixture();
afterAll(() => fixture.remove());

const EXPORT_ID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
const PRODUCT_ID = '3fa85f64-5717-4562-b3fc-2c963f66afa7';

/** Stage settings that set every configuration variable design.md names for the functions. */
const STAGE_SETTINGS = {
  pollRateMinutes: 5,
  pollInterval: '10m',
  pollOverlap: '30s',
  pollSettleLag: '2s',
  pollEntities: ['customer', 'export', 'productPrice'],
  pollExportIds: [EXPORT_ID],
  pollProductIds: [`${PRODUCT_ID}@Europe/Prague`],
  initialSync: 'emit',
  eventSource: 'my.bridge',
  streamMetrics: false,
  deliveryTimeoutMs: 5000,
  endpointFailingAfter: 7,
  endpointDisableAfter: '12h',
  publishTargets: 'both',
  terminationProtection: false,
};

const FunctionSchema = z.object({
  Properties: z.object({
    Environment: z.object({ Variables: z.record(z.string(), z.unknown()) }),
  }),
});

/**
 * A value of the deployed environment: literals as they are, and what CloudFormation resolves at
 * deploy time (the Stateful stack's exports) as a value of its kind, told by the export's name.
 */
function deployedValue(value: unknown): string {
  if (typeof value === 'string') return value;
  const reference = JSON.stringify(value);
  if (reference.includes('Queue'))
    return reference.includes('Arn')
      ? 'arn:aws:sqs:eu-west-1:123456789012:queue'
      : 'https://sqs.eu-west-1.amazonaws.com/123456789012/queue';
  if (reference.includes('Secret'))
    return 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:change-bridge/env/deployment-AbCdEf';
  if (reference.includes('Key')) return 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd';
  if (reference.includes('EventBus')) return 'ChangeBridgeenvStatefulStateEventBus';
  if (reference.includes('Table')) return 'ChangeBridge-env-Stateful-StateTable';
  throw new Error(`no deployed value for ${reference}`);
}

let environments: Map<string, Record<string, string>>;

beforeAll(() => {
  const app = fixture.app({
    stage: 'env',
    functionsDir: fixture.functionsDir,
    changeBridge: { env: STAGE_SETTINGS },
  });
  const runtime = Template.fromStack(createChangeBridgeApp(app, {}).runtime);
  environments = new Map(
    Object.entries(runtime.findResources('AWS::Lambda::Function')).map(([id, resource]) => [
      id,
      Object.fromEntries(
        Object.entries(FunctionSchema.parse(resource).Properties.Environment.Variables).map(
          ([name, value]) => [name, deployedValue(value)],
        ),
      ),
    ]),
  );
});

describe("the functions' environment as the stack deploys it", () => {
  it('gives every function the poll settings of the stage, as the handlers read them', () => {
    expect(environments.size).toBe(4);
    for (const [id, env] of environments) {
      const { settings, tracked, streamMetrics } = readPollLambdaEnv(env, Date.UTC(2026, 11, 3));
      expect({ id, settings, tracked, streamMetrics }).toMatchObject({
        id,
        settings: {
          intervalMs: 600_000,
          entities: ['customer', 'export', 'productPrice'],
          initialSync: 'emit',
          windows: { overlapMs: 30_000, settleLagMs: 2000 },
        },
        tracked: {
          exportIds: [EXPORT_ID],
          products: [expect.objectContaining({ productId: PRODUCT_ID })],
        },
        streamMetrics: false,
      });
    }
  });

  it('gives every function the webhook and publishing settings of the stage, as the handlers read them', () => {
    for (const [id, env] of environments) {
      const { webhooks, allowPrivate, eventSource } = readAdminApiEnv(env, Date.UTC(2026, 11, 3));
      expect({ id, allowPrivate, eventSource, webhooks }).toMatchObject({
        id,
        allowPrivate: false,
        eventSource: 'my.bridge',
        webhooks: {
          DELIVERY_TIMEOUT_MS: 5000,
          WEBHOOK_FAILING_AFTER: 7,
          WEBHOOK_DISABLE_AFTER: 12 * 3_600_000,
        },
      });
      const publisher = parsePublisherConfig(env);
      expect(publisher.eventBridge).toMatchObject({ source: 'my.bridge', mode: 'matched' });
      expect(publisher.sqs).toBeDefined();
      expect(publisher.dispatch).toMatchObject({ source: 'my.bridge' });
    }
  });
});
