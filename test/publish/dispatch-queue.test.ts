import {
  SendMessageBatchCommand,
  type SendMessageBatchCommandInput,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createDispatchQueuePublisher } from '../../shared/publish/dispatch-queue.ts';
import { DispatchEnvelopeSchema, isDeliveryMessageBody } from '../../shared/webhooks/messages.ts';
import { makeEvent, makeEvents } from './fixtures.ts';

const sqs = mockClient(SQSClient);
// The mock patches the client class for the whole worker: undone when this file ends.
afterAll(() => sqs.restore());
const queueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/dispatch';

function sent(): SendMessageBatchCommandInput[] {
  return sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input);
}

describe('the dispatch queue publisher', () => {
  beforeEach(() => {
    sqs.reset();
    sqs.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => ({
      Successful: (input.Entries ?? []).map((entry) => ({ Id: entry.Id })),
      Failed: [],
    }));
  });
  afterEach(() => sqs.reset());

  const publisher = () =>
    createDispatchQueuePublisher({
      client: new SQSClient({ region: 'eu-west-1' }),
      queueUrl,
      source: 'change-bridge',
      clock: new ManualClock(),
    });

  it('sends batches of 10 messages to the dispatch queue', async () => {
    const result = await publisher().publish(makeEvents(23));
    expect(result.published).toBe(23);
    expect(sent().map((input) => input.Entries?.length)).toEqual([10, 10, 3]);
    expect(sent().every((input) => input.QueueUrl === queueUrl)).toBe(true);
  });

  it('sends each event in the envelope the dispatcher parses, the event untouched as detail', async () => {
    const event = makeEvent(7);
    await publisher().publish([event]);
    const body = JSON.parse(sent()[0]?.Entries?.[0]?.MessageBody ?? '');
    expect(body).toEqual({
      version: '0',
      id: event.id,
      'detail-type': 'customer.updated',
      source: 'change-bridge',
      time: event.time,
      detail: event,
    });
    expect(isDeliveryMessageBody(body)).toBe(false);
    expect(() => DispatchEnvelopeSchema.parse(body)).not.toThrow();
  });

  it('keeps each request under 256 KiB, sending a too-large event thin', async () => {
    const big = makeEvents(4, { previousPadding: 100_000 });
    const huge = makeEvent(9, { previousPadding: 300_000 });
    const result = await publisher().publish([...big, huge]);
    expect(result.published).toBe(5);
    expect(result.thinned).toBe(1);
    for (const input of sent()) {
      const bytes = (input.Entries ?? []).reduce(
        (sum, entry) => sum + Buffer.byteLength(entry.MessageBody ?? ''),
        0,
      );
      expect(bytes).toBeLessThanOrEqual(256 * 1024);
    }
    expect(sent().map((input) => input.Entries?.length)).toEqual([2, 3]);
  });
});
