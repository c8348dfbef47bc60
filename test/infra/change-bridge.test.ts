import { CfnElement, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChangeBridge,
  type ChangeBridgeProps,
  resolveChangeBridgeProps,
} from '../../infra/index.ts';
import { pollJobAgeAlarmSeconds } from '../../infra/monitoring.ts';
import { ValidationError } from '../../shared/errors.ts';
import { createFunctionsFixture } from './synth-fixture.ts';

const fixture = createFunctionsFixture();
let template: Template;
let bridge: ChangeBridge;
const EXPORT_1 = '2f0c7a52-1c1e-4d0b-9a53-4b9e0d3e8a11';
const EXPORT_2 = '7d3e2b90-5a4f-4c61-8f0e-2c8b9a6d4e22';

beforeAll(() => {
  // A user's own app: the construct embedded in one of their stacks, region-agnostic,
  // with the cdk-nag pack of their app (synthesis throws on any finding).
  const app = fixture.app();
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const stack = new Stack(app, 'HotelPlatform');
  bridge = new ChangeBridge(stack, 'Bridge', {
    connections: [{ id: 'main' }],
    pollRateMinutes: 5,
    pollEntities: ['customer', 'resource'],
    pollExportIds: [EXPORT_1, EXPORT_2],
    pollPriceHorizonDays: 14,
    pollSettleLag: '10s',
    functionsDir: fixture.functionsDir,
  });
  template = Template.fromStack(stack);
});

afterAll(() => fixture.remove());

describe('ChangeBridge construct', () => {
  it('synthesizes inside a user stack with no cdk-nag finding', () => {
    template.resourceCountIs('AWS::Lambda::Function', 4);
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
  });

  it('schedules the planner at the configured rate', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
    });
  });

  it('alarms on poll jobs older than the planner rate delays them plus one retry', () => {
    const child = bridge.state.pollJobQueue.node.defaultChild;
    if (!(child instanceof CfnElement)) throw new Error('the poll job queue has no CfnElement');
    const queue = Stack.of(bridge).getLogicalId(child);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).filter(
      (alarm) =>
        alarm.Properties.MetricName === 'ApproximateAgeOfOldestMessage' &&
        JSON.stringify(alarm.Properties.Dimensions).includes(queue),
    );
    expect(alarms).toHaveLength(1);
    // 5-minute planning delays a job up to 300 s; a failed attempt waits 720 s for its retry.
    expect(alarms[0]!.Properties.Threshold).toBe(300 + 720);
  });

  it('gives the planner alone its schedule rate (PLANNER_RATE), how far ahead it plans', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    const rates = functions.map((fn) => [
      fn.Properties.Description,
      fn.Properties.Environment.Variables.PLANNER_RATE,
    ]);
    expect(rates).toContainEqual(['change-bridge: enqueues due poll jobs', '300s']);
    expect(rates.filter(([, rate]) => rate !== undefined)).toHaveLength(1);
  });

  it('alarms on poll jobs by the planner rate, not by a longer pollInterval', () => {
    const config = resolveChangeBridgeProps({ pollRateMinutes: 1, pollInterval: '10m' });
    const visibilitySeconds = resolveChangeBridgeProps({}).pollerTimeoutSeconds * 6;
    expect(pollJobAgeAlarmSeconds(config)).toBe(60 + visibilitySeconds);
  });

  it('publishes to EventBridge only by default: no events queue and no PUBLISH_QUEUE_URL', () => {
    expect(bridge.state.eventsQueue).toBeUndefined();
    // Poll jobs, dispatch and bulk dispatch with their DLQs: no rule, so no rule DLQ.
    template.resourceCountIs('AWS::SQS::Queue', 6);
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
      expect(fn.Properties.Environment.Variables.PUBLISH_QUEUE_URL).toBeUndefined();
      expect(fn.Properties.Environment.Variables.PUBLISH_TARGETS).toBe('eventbridge');
    }
  });

  it('creates no event archive by default (opt-in; replay works from the state table)', () => {
    expect(bridge.state.archive).toBeUndefined();
    template.resourceCountIs('AWS::Events::Archive', 0);
  });

  it('puts on the bus only the events its rules match by default, and has no rule of its own', () => {
    template.resourceCountIs('AWS::Events::Rule', 0);
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
      expect(fn.Properties.Environment.Variables.PUBLISH_EVENT_BUS_MODE).toBe('matched');
    }
  });

  it('passes the poll settings to the functions as the variables the handlers parse', () => {
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        POLL_INTERVAL: '300s',
        POLL_SETTLE_LAG: '10s',
        POLL_ENTITIES: 'customer,resource',
        POLL_EXPORT_IDS: `${EXPORT_1},${EXPORT_2}`,
        POLL_PRICE_HORIZON_DAYS: '14',
        INITIAL_SYNC: 'baseline',
      });
      expect(fn.Properties.Environment.Variables.POLL_PRODUCT_IDS).toBeUndefined();
    }
  });

  it('rejects invalid props with an error naming the field', () => {
    const stack = new Stack(fixture.app(), 'Other');
    let count = 0;
    const build = (props: ChangeBridgeProps) => () => {
      count += 1;
      return new ChangeBridge(stack, `Bridge${count}`, props);
    };
    expect(build({ connections: [{ id: 'Main Hotel' }] })).toThrow(ValidationError);
    expect(build({ connections: [{ id: 'Main Hotel' }] })).toThrow(/connections\[0\]\.id/);
    expect(build({ connections: [{ id: 'a' }], pollRateMinutes: 0 })).toThrow(/pollRateMinutes/);
    // Each stream is polled at most once per planner run: a shorter interval would not be kept.
    expect(build({ pollRateMinutes: 5, pollInterval: '1m' })).toThrow(
      /pollInterval: must be at least the planner's rate, 5 minutes \(pollRateMinutes\)/,
    );
    expect(() =>
      resolveChangeBridgeProps({ pollRateMinutes: 5, pollInterval: '5m' }),
    ).not.toThrow();
    expect(() => resolveChangeBridgeProps({ pollInterval: '90s' })).not.toThrow();
    expect(build({ connections: [{ id: 'a' }], pollerMaxConcurrency: 1 })).toThrow(
      /pollerMaxConcurrency/,
    );
    expect(build({ connections: [{ id: 'a' }, { id: 'a' }] })).toThrow(/ids must be unique/);
    // A CloudWatch dimension value: past 255 characters CDK refused it with its own error.
    expect(build({ serviceName: 'n'.repeat(256) })).toThrow(/serviceName/);
    expect(build({ serviceName: 'n'.repeat(255) })).not.toThrow();
    // Connections are data: none as props is a valid deployment; many as props is refused.
    expect(build({})).not.toThrow();
    expect(
      build({ connections: Array.from({ length: 21 }, (_, index) => ({ id: `h${index}` })) }),
    ).toThrow(/connections add/);
    // Through the schema directly: the type already rules out an unknown entity.
    expect(() =>
      resolveChangeBridgeProps({ connections: [{ id: 'a' }], pollEntities: ['guest'] }),
    ).toThrow(/pollEntities\[0\]/);
    expect(build({ connections: [{ id: 'a' }], pollOverlap: 'soon' })).toThrow(/pollOverlap/);
    expect(build({ connections: [{ id: 'a' }], pollOverlap: '95d' })).toThrow(
      /pollOverlap: must be at most 1d/,
    );
    // The poll Lambdas would refuse them at every cold start: refused at synth instead.
    expect(build({ connections: [{ id: 'a' }], pollExportIds: ['exp-1'] })).toThrow(
      /pollExportIds\[0\]/,
    );
    expect(
      build({ connections: [{ id: 'a' }], pollProductIds: [`${EXPORT_1}@Europe/Pargue`] }),
    ).toThrow(/pollProductIds\[0\]/);
    // products/getPricing spans at most 100 days: every price poll would be refused.
    expect(build({ connections: [{ id: 'a' }], pollPriceHorizonDays: 101 })).toThrow(
      /pollPriceHorizonDays/,
    );
    // A batch of 16 deliveries to one hanging endpoint at 15 s each needs 250 s.
    expect(
      build({
        connections: [{ id: 'a' }],
        deliveryTimeoutMs: 15_000,
        dispatcherTimeoutSeconds: 240,
      }),
    ).toThrow(/dispatcherTimeoutSeconds/);
    expect(
      build({
        connections: [{ id: 'a' }],
        deliveryTimeoutMs: 15_000,
        dispatcherTimeoutSeconds: 250,
      }),
    ).not.toThrow();
  });

  it('refuses a log retention that never expires: RetentionDays.INFINITE is no CloudWatch value, it drops the retention', () => {
    expect(() => resolveChangeBridgeProps({ logRetentionDays: RetentionDays.INFINITE })).toThrow(
      /logRetentionDays/,
    );
    expect(
      resolveChangeBridgeProps({ logRetentionDays: RetentionDays.TEN_YEARS }).logRetentionDays,
    ).toBe(RetentionDays.TEN_YEARS);
    expect(resolveChangeBridgeProps({}).logRetentionDays).toBe(RetentionDays.ONE_MONTH);
  });

  it('refuses a poll interval over a day, as the pollers and a connection do', () => {
    expect(() => resolveChangeBridgeProps({ pollInterval: '2d' })).toThrow(/pollInterval/);
    expect(resolveChangeBridgeProps({ pollInterval: '1d' }).pollInterval).toBe('1d');
  });
});
