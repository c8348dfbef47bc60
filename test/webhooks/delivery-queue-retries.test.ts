import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { SqsDeliveryQueue } from '../../shared/webhooks/queue.ts';
import { driveClock } from '../publish/clock-driver.ts';

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/dispatch';
const sqs = mockClient(SQSClient);
afterEach(() => sqs.reset());
// vitest runs files in one context (isolate: false): the prototype's mock must not outlive this file.
afterAll(() => sqs.restore());

const entries = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    message: { kind: 'delivery' as const, deliveryId: `dlv_${i}`, subscriptionId: 'sub_1' },
    delaySeconds: 5,
  }));

/** The delivery ids of the entries of each SendMessageBatch call, in order. */
const sentIds = () =>
  sqs
    .commandCalls(SendMessageBatchCommand)
    .map((call) =>
      (call.args[0].input.Entries ?? []).map((e) => JSON.parse(e.MessageBody ?? '{}').deliveryId),
    );

describe('SqsDeliveryQueue.sendBatch (SDK mock)', () => {
  it('sends again, alone and after a backoff, the entries SQS refused for a transient reason', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({
        Successful: [],
        Failed: [
          { Id: '1', SenderFault: false, Code: 'InternalError', Message: 'try again' },
          { Id: '2', SenderFault: true, Code: 'KMS.ThrottlingException', Message: 'slow down' },
        ],
      })
      .resolves({ Failed: [] });
    const clock = new ManualClock();
    const queue = new SqsDeliveryQueue(new SQSClient({ region: 'us-east-1' }), QUEUE_URL, {
      clock,
      random: () => 0.5,
    });
    const start = clock.now();
    expect(await driveClock(clock, queue.sendBatch(entries(3)), 10)).toEqual([]);
    expect(sentIds()).toEqual([
      ['dlv_0', 'dlv_1', 'dlv_2'],
      ['dlv_1', 'dlv_2'],
    ]);
    expect(clock.now()).toBeGreaterThan(start);
  });

  it('reports at once an entry refused for good, and one still refused after the last attempt', async () => {
    sqs.on(SendMessageBatchCommand).resolves({
      Failed: [
        { Id: '0', SenderFault: true, Code: 'InvalidParameterValue', Message: 'bad' },
        { Id: '1', SenderFault: false, Code: 'InternalError', Message: 'try again' },
      ],
    });
    const clock = new ManualClock();
    const queue = new SqsDeliveryQueue(new SQSClient({ region: 'us-east-1' }), QUEUE_URL, {
      clock,
      random: () => 0.5,
      retry: { maxAttempts: 3 },
    });
    const failed = await driveClock(clock, queue.sendBatch(entries(2)), 10);
    expect(failed.sort()).toEqual([0, 1]);
    // The refused-for-good entry went once; the transient one three times.
    expect(sentIds()).toEqual([['dlv_0', 'dlv_1'], ['dlv_1'], ['dlv_1']]);
  });

  it('keeps each entry its index in the answer across chunks of ten and retries', async () => {
    let seen = 0;
    sqs.on(SendMessageBatchCommand).callsFake((input: { Entries: { Id: string }[] }) => {
      if (!input.Entries.some((entry) => entry.Id === '11')) return { Failed: [] };
      seen += 1;
      return {
        Failed: [
          seen < 3
            ? { Id: '11', SenderFault: false, Code: 'InternalError' }
            : { Id: '11', SenderFault: true, Code: 'InvalidParameterValue' },
        ],
      };
    });
    const clock = new ManualClock();
    const queue = new SqsDeliveryQueue(new SQSClient({ region: 'us-east-1' }), QUEUE_URL, {
      clock,
      random: () => 0.5,
    });
    expect(await driveClock(clock, queue.sendBatch(entries(12)), 10)).toEqual([11]);
    expect(sentIds()).toHaveLength(4);
  });
});
