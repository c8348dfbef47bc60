import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/errors.ts';
import { EventBridgePublisher } from '../../shared/publish/event-bridge-publisher.ts';
import { MultiPublisher } from '../../shared/publish/multi-publisher.ts';
import { createPublisher, parsePublisherConfig } from '../../shared/publish/publisher-config.ts';
import { SqsPublisher } from '../../shared/publish/sqs-publisher.ts';

function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

const queueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/changes.fifo';

describe('parsePublisherConfig', () => {
  it('defaults to EventBridge on the default bus with source change-bridge, matched events only', () => {
    expect(parsePublisherConfig({})).toEqual({
      dispatch: undefined,
      eventBridge: { eventBusName: 'default', source: 'change-bridge', mode: 'matched' },
      sqs: undefined,
    });
  });

  it('feeds the dispatch queue named by DISPATCH_QUEUE_URL, whatever the targets', () => {
    const dispatchUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/dispatch';
    for (const targets of ['eventbridge', 'sqs', 'both']) {
      const config = parsePublisherConfig({
        PUBLISH_TARGETS: targets,
        PUBLISH_QUEUE_URL: queueUrl,
        PUBLISH_EVENT_SOURCE: 'acme',
        DISPATCH_QUEUE_URL: dispatchUrl,
      });
      expect(config.dispatch).toEqual({ queueUrl: dispatchUrl, source: 'acme' });
    }
  });

  it('puts every event on the bus with PUBLISH_EVENT_BUS_MODE=all, and names a bad mode', () => {
    expect(parsePublisherConfig({ PUBLISH_EVENT_BUS_MODE: 'all' }).eventBridge?.mode).toBe('all');
    expect(() => parsePublisherConfig({ PUBLISH_EVENT_BUS_MODE: 'some' })).toThrow(
      /PUBLISH_EVENT_BUS_MODE/,
    );
  });

  it('reads both targets, taking FIFO mode from the queue URL unless told', () => {
    const env = {
      PUBLISH_TARGETS: 'both',
      PUBLISH_QUEUE_URL: queueUrl,
      PUBLISH_EVENT_BUS_NAME: 'changes',
    };
    expect(parsePublisherConfig(env)).toEqual({
      dispatch: undefined,
      eventBridge: { eventBusName: 'changes', source: 'change-bridge', mode: 'matched' },
      sqs: { queueUrl, fifo: true },
    });
    expect(
      parsePublisherConfig({ ...env, PUBLISH_TARGETS: 'sqs', PUBLISH_QUEUE_FIFO: 'false' }),
    ).toEqual({
      dispatch: undefined,
      eventBridge: undefined,
      sqs: { queueUrl, fifo: false },
    });
  });

  it('names PUBLISH_QUEUE_URL when SQS is chosen without a queue', () => {
    expect(() => parsePublisherConfig({ PUBLISH_TARGETS: 'sqs', PUBLISH_QUEUE_URL: '' })).toThrow(
      ValidationError,
    );
    expect(caught(() => parsePublisherConfig({ PUBLISH_TARGETS: 'sqs' }))).toMatchObject({
      name: 'ValidationError',
      path: 'PUBLISH_QUEUE_URL',
    });
  });

  it('refuses a PUBLISH_EVENT_SOURCE that PutEvents would refuse for every event, saying why', () => {
    // EventBridge's Source: 1 to 256 characters, never starting with `aws.` (AWS services' own).
    const error = caught(() => parsePublisherConfig({ PUBLISH_EVENT_SOURCE: 'aws.hotel' }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ path: 'PUBLISH_EVENT_SOURCE' });
    expect(String((error as Error).message)).toMatch(/must not start with aws\./);
    expect(String((error as Error).message)).not.toContain('aws.hotel');
    expect(() => parsePublisherConfig({ PUBLISH_EVENT_SOURCE: 's'.repeat(257) })).toThrow(
      /PUBLISH_EVENT_SOURCE: must be at most 256 characters/,
    );
    const longest = 's'.repeat(256);
    expect(parsePublisherConfig({ PUBLISH_EVENT_SOURCE: longest }).eventBridge?.source).toBe(
      longest,
    );
    // Only the prefix is AWS's: a source that merely contains it is the user's.
    expect(
      parsePublisherConfig({ PUBLISH_EVENT_SOURCE: 'acme.aws.bridge' }).eventBridge?.source,
    ).toBe('acme.aws.bridge');
  });

  it('names PUBLISH_TARGETS when its value is unknown', () => {
    expect(() => parsePublisherConfig({ PUBLISH_TARGETS: 'kafka' })).toThrow(/PUBLISH_TARGETS/);
  });
});

describe('createPublisher', () => {
  const eventBridgeClient = new EventBridgeClient({ region: 'us-east-1' });
  const sqsClient = new SQSClient({ region: 'us-east-1' });

  it('builds one adapter per chosen target, and a MultiPublisher for both', () => {
    const deps = { eventBridgeClient, sqsClient };
    expect(createPublisher(parsePublisherConfig({}), deps)).toBeInstanceOf(EventBridgePublisher);
    const sqsOnly = parsePublisherConfig({ PUBLISH_TARGETS: 'sqs', PUBLISH_QUEUE_URL: queueUrl });
    expect(createPublisher(sqsOnly, deps)).toBeInstanceOf(SqsPublisher);
    const both = parsePublisherConfig({ PUBLISH_TARGETS: 'both', PUBLISH_QUEUE_URL: queueUrl });
    expect(createPublisher(both, deps)).toBeInstanceOf(MultiPublisher);
  });

  it('refuses a chosen target without its client', () => {
    const both = parsePublisherConfig({ PUBLISH_TARGETS: 'both', PUBLISH_QUEUE_URL: queueUrl });
    expect(() => createPublisher(both, { eventBridgeClient })).toThrow(/SQS/);
    const dispatch = parsePublisherConfig({ DISPATCH_QUEUE_URL: queueUrl });
    expect(() => createPublisher(dispatch, { eventBridgeClient })).toThrow(/dispatch queue/);
  });
});
