import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { startEventSourceLoop } from '../../shared/local/event-source-loop.ts';

/** A queue of `count` messages, numbered in order, that a receive takes up to 10 of at a time. */
function orderedQueue(count: number) {
  const bodies = Array.from({ length: count }, (_, i) => String(i + 1));
  const client = {
    send: async (
      command: { input: { MaxNumberOfMessages?: number } },
      options?: { abortSignal?: AbortSignal },
    ) => {
      // Every receive yields before it answers, as one through the SDK does.
      await new Promise((resolve) => setImmediate(resolve));
      if (!('MaxNumberOfMessages' in command.input)) return {};
      const taken = bodies.splice(0, command.input.MaxNumberOfMessages ?? 1);
      if (taken.length === 0) {
        // A long poll that finds nothing waits until the loop stops.
        await new Promise((resolve) => options?.abortSignal?.addEventListener('abort', resolve));
        return { Messages: [] };
      }
      return {
        Messages: taken.map((body) => ({ MessageId: body, ReceiptHandle: body, Body: body })),
      };
    },
  } as unknown as SQSClient;
  return { client, left: () => bodies.length };
}

describe('the event source loop with several workers', () => {
  it("hands batches over in the queue's order, each gathered whole before the next worker receives", async () => {
    const queue = orderedQueue(400);
    const handedOver: number[] = [];
    let release = () => {};
    const handlersMayEnd = new Promise<void>((resolve) => {
      release = resolve;
    });
    const loop = startEventSourceLoop({
      client: queue.client,
      queueUrl: 'http://127.0.0.1:1/000000000000/dispatch',
      batchSize: 50,
      concurrency: 8,
      handler: async (event) => {
        handedOver.push(...event.Records.map((record) => Number(record.body)));
        await handlersMayEnd;
        return { batchItemFailures: [] };
      },
    });
    while (handedOver.length < 400) await new Promise((resolve) => setTimeout(resolve, 5));
    // Eight batches of 50 run at once (the handlers still wait), handed over in order.
    expect(handedOver).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    release();
    await loop.stop();
  });
});
