import { EventBridgeClient, ListRulesCommand } from '@aws-sdk/client-eventbridge';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import type { FauxqsServer } from 'fauxqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PublishableEventSchema } from '../../shared/publish/publishable-event.ts';
import { createPublisher, parsePublisherConfig } from '../../shared/publish/publisher-config.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { createDispatcherDeps } from '../../shared/webhooks/dispatcher-deps.ts';
import { SqsDeliveryQueue } from '../../shared/webhooks/queue.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, eventIdOf } from './support/harness.ts';
import { type LocalSqs, startLocalSqs } from './support/local-sqs.ts';
import type { ReceiverAction } from './support/receiver.ts';

let local: LocalSqs;
let sqsServer: FauxqsServer;
let sqs: SQSClient;
const bus = mockClient(EventBridgeClient);
let cleanup: (() => Promise<void>)[] = [];

beforeAll(async () => {
  local = await startLocalSqs();
  sqsServer = local.server;
  sqs = local.client;
  bus.on(ListRulesCommand).resolves({ Rules: [] });
});
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});
afterAll(async () => {
  bus.restore();
  await local.stop();
});

/**
 * The poller's publisher on a FIFO dispatch queue (through fauxqs), and the dispatcher on its
 * batch with its delivery messages going to `retryQueueUrl`; the receiver fails every first
 * attempt. Returns the records handed out, the batch's answer and the standard queue's content.
 */
async function fifoRound(retryQueueUrl: (fifoUrl: string, standardUrl: string) => string) {
  const suffix = Math.random().toString(36).slice(2, 8);
  const fifoUrl = sqsServer.createQueue(`dispatch-${suffix}.fifo`, {
    attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'false' },
  }).queueUrl;
  const standardUrl = sqsServer.createQueue(`dispatch-retries-${suffix}`).queueUrl;
  const publisher = createPublisher(parsePublisherConfig({ DISPATCH_QUEUE_URL: fifoUrl }), {
    sqsClient: sqs,
    eventBridgeClient: new EventBridgeClient({}),
  });
  const event = (n: number, subject: string) =>
    PublishableEventSchema.parse(changeEvent(eventIdOf(n), { subject }));
  const published = await publisher.publish([event(1, 'c-1'), event(2, 'c-2'), event(3, 'c-1')]);
  expect(published.failures).toEqual([]);
  const records = await local.receiveAll(fifoUrl);

  const { harness, subscribe } = await startDispatchFixture(
    cleanup,
    () => ({ kind: 'respond', status: 500 }) satisfies ReceiverAction,
  );
  await subscribe('/hooks', { retrySchedule: [10_000] });
  const deps = createDispatcherDeps({
    ...harness.deps,
    queue: new SqsDeliveryQueue(sqs, retryQueueUrl(fifoUrl, standardUrl)),
  });
  const result = await processDispatchBatch(records, deps);
  return { records, result, retries: sqsServer.inspectQueue(standardUrl.split('/').at(-1)!) };
}

describe('FIFO dispatch queues in AWS (fauxqs)', () => {
  it('the poller groups a FIFO dispatch queue’s events by entity, and the dispatcher’s retries go to the standard retry queue', async () => {
    const { records, result, retries } = await fifoRound((_fifo, standard) => standard);
    // c-1's second event stays in the queue while its first is handed out: never two events of
    // one subject with two containers at once.
    expect(records.map((record) => record.attributes.MessageGroupId)).toEqual([
      'customer:c-1',
      'customer:c-2',
    ]);
    expect(result.batchItemFailures).toEqual([]);
    // Both deliveries failed their first attempt: two delayed retry messages.
    expect(retries?.messages.delayed).toHaveLength(2);
  });

  it('sent to the FIFO queue itself, the retries are refused (no per-message delay there): the control', async () => {
    const { result } = await fifoRound((fifo) => fifo);
    expect(result.batchItemFailures).toHaveLength(2);
  });
});
