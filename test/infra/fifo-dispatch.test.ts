import { CfnElement, Stack, Stage } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChangeBridgeApp, createChangeBridgeApp } from '../../infra/create-app.ts';
import { FIFO_DISPATCH_BATCH_SIZE } from '../../infra/props.ts';
import { ENDPOINT_CONCURRENCY_DEFAULT } from '../../shared/webhooks/endpoint-settings.ts';
import { createFunctionsFixture } from './synth-fixture.ts';

const fixture = createFunctionsFixture();
let fifo: ChangeBridgeApp;
let standard: ChangeBridgeApp;

function build(dispatchQueueFifo: boolean): ChangeBridgeApp {
  const app = fixture.app({
    stage: 'test',
    functionsDir: fixture.functionsDir,
    changeBridge: { test: { dispatchQueueFifo, terminationProtection: false } },
  });
  return createChangeBridgeApp(app, {});
}

beforeAll(() => {
  fifo = build(true);
  standard = build(false);
});
afterAll(() => fixture.remove());

function logicalId(construct: IConstruct): string {
  const child = construct.node.defaultChild;
  if (!(child instanceof CfnElement)) throw new Error(`${construct.node.path} has no CfnElement`);
  return Stack.of(construct).getLogicalId(child);
}

/** The environment of the dispatcher function. */
function dispatcherEnvironment(built: ChangeBridgeApp): Record<string, unknown> {
  const functions = Template.fromStack(built.runtime).findResources('AWS::Lambda::Function');
  const dispatcher = functions[logicalId(built.runtime.runtime.dispatcher)];
  return dispatcher?.Properties.Environment.Variables ?? {};
}

describe('FIFO dispatch queues (dispatchQueueFifo)', () => {
  it('makes both dispatch queues and their dead-letter queues high-throughput FIFO queues', () => {
    const { state } = fifo.stateful;
    const queues = Template.fromStack(fifo.stateful).findResources('AWS::SQS::Queue');
    for (const queue of [state.dispatchQueue, state.bulkDispatchQueue]) {
      expect(queues[logicalId(queue)]?.Properties).toMatchObject({
        FifoQueue: true,
        ContentBasedDeduplication: false,
        DeduplicationScope: 'messageGroup',
        FifoThroughputLimit: 'perMessageGroupId',
      });
      const dlqArn = queues[logicalId(queue)]?.Properties.RedrivePolicy.deadLetterTargetArn;
      const dlqId = dlqArn['Fn::GetAtt'][0] as string;
      expect(queues[dlqId]?.Properties.FifoQueue).toBe(true);
    }
    // Retries go to a standard queue (per-message delays), alarmed like the others.
    const retry = state.dispatchRetryQueue;
    expect(retry).toBeDefined();
    expect(queues[logicalId(retry!)]?.Properties.FifoQueue).toBeUndefined();
    expect([...state.deadLetterQueues.keys()]).toContain('DispatchRetry');
  });

  it('reads the FIFO queues 10 records a batch without a batching window, and the retry queue as a standard one', () => {
    const runtime = Template.fromStack(fifo.runtime);
    const dispatcher = { Ref: logicalId(fifo.runtime.runtime.dispatcher) };
    const mappings = Object.values(
      runtime.findResources('AWS::Lambda::EventSourceMapping', {
        Properties: { FunctionName: dispatcher },
      }),
    );
    expect(mappings).toHaveLength(3);
    for (const queue of ['DispatchQueue', 'BulkDispatchQueue'])
      runtime.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: dispatcher,
        EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp(`${queue}[A-F0-9]`) },
        BatchSize: FIFO_DISPATCH_BATCH_SIZE,
        MaximumBatchingWindowInSeconds: Match.absent(),
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    runtime.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: dispatcher,
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp('DispatchRetryQueue') },
      BatchSize: ENDPOINT_CONCURRENCY_DEFAULT,
      MaximumBatchingWindowInSeconds: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('tells the dispatcher and the admin API where delivery messages go, and lets them send there', () => {
    expect(dispatcherEnvironment(fifo).DISPATCH_RETRY_QUEUE_URL).toBeDefined();
    const runtime = Template.fromStack(fifo.runtime);
    const policies = JSON.stringify(runtime.findResources('AWS::IAM::Policy'));
    // The retry queue's ARN is imported from the stateful stack into the grants.
    expect(policies).toMatch(/DispatchRetryQueue/);
  });

  it('alarms on visible messages none receives on every queue the dispatcher reads, waiting out a FIFO group held by a message in flight', () => {
    /** Evaluation periods of the not-received alarm of each queue it reads, by queue logical id. */
    const notReceived = (built: ChangeBridgeApp) => {
      const alarms = Template.fromStack(built.runtime).findResources('AWS::CloudWatch::Alarm');
      const { state } = built.stateful;
      const queues = [state.dispatchQueue, state.bulkDispatchQueue, state.dispatchRetryQueue];
      return queues.flatMap((queue) => {
        if (!queue) return [];
        const id = logicalId(queue);
        const periods = Object.values(alarms)
          .filter((alarm) => {
            const text = JSON.stringify(alarm.Properties.Metrics ?? []);
            return text.includes('NumberOfMessagesReceived') && text.includes(id);
          })
          .map((alarm) => alarm.Properties.EvaluationPeriods as number);
        return [[id, periods] as const];
      });
    };
    const { state } = fifo.stateful;
    // FIFO: the 18-minute visibility timeout (6 x the 180 s dispatcher timeout) and a period.
    expect(notReceived(fifo)).toEqual([
      [logicalId(state.dispatchQueue), [5]],
      [logicalId(state.bulkDispatchQueue), [5]],
      [logicalId(state.dispatchRetryQueue!), [3]],
    ]);
    expect(notReceived(standard)).toEqual([
      [logicalId(standard.stateful.state.dispatchQueue), [3]],
      [logicalId(standard.stateful.state.bulkDispatchQueue), [3]],
    ]);
  });

  it('alarms on the age of the oldest message of the FIFO dispatch queue and of the retry queue, not of the bulk one', () => {
    const alarms = Template.fromStack(fifo.runtime).findResources('AWS::CloudWatch::Alarm');
    const { state } = fifo.stateful;
    const thresholds = [
      state.dispatchQueue,
      state.bulkDispatchQueue,
      state.dispatchRetryQueue!,
    ].map((queue) =>
      Object.values(alarms)
        .filter(
          (alarm) =>
            alarm.Properties.MetricName === 'ApproximateAgeOfOldestMessage' &&
            JSON.stringify(alarm.Properties.Dimensions).includes(logicalId(queue)),
        )
        .map((alarm) => alarm.Properties.Threshold as number),
    );
    // The 18-minute visibility timeout (6 x the 180 s dispatcher timeout) and one invocation.
    expect(thresholds).toEqual([[6 * 180 + 180], [], [6 * 180 + 180]]);
  });

  it('passes the cdk-nag checks of a whole synthesis', () => {
    // synth() throws ValidationFailed when a plugin (cdk-nag) reports a violation. The FIFO
    // app's one synthesis (the templates above read it too) is the whole synthesis checked.
    const app = Stage.of(fifo.stateful);
    expect(app).toBe(Stage.of(fifo.runtime));
    expect(app?.synth().stacks).toHaveLength(2);
  });

  it('leaves a stack without it as it was: standard queues, two mappings, no retry queue', () => {
    const { state } = standard.stateful;
    expect(state.dispatchRetryQueue).toBeUndefined();
    const queues = Template.fromStack(standard.stateful).findResources('AWS::SQS::Queue');
    expect(queues[logicalId(state.dispatchQueue)]?.Properties.FifoQueue).toBeUndefined();
    expect(dispatcherEnvironment(standard).DISPATCH_RETRY_QUEUE_URL).toBeUndefined();
    const mappings = Template.fromStack(standard.runtime).findResources(
      'AWS::Lambda::EventSourceMapping',
      { Properties: { FunctionName: { Ref: logicalId(standard.runtime.runtime.dispatcher) } } },
    );
    expect(Object.keys(mappings)).toHaveLength(2);
  });
});
