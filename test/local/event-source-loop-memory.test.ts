import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type Message, ReceiveMessageCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEventSourceLoop } from '../../shared/local/event-source-loop.ts';
import { type SqsEmulator, startSqsEmulator } from '../../shared/local/sqs-emulator.ts';

/** V8's collector, reached without starting node with `--expose-gc` (a new context has it). */
function exposedGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

let sqs: SqsEmulator;

beforeAll(async () => {
  sqs = await startSqsEmulator();
});

afterAll(async () => {
  await sqs.close();
});

describe('the event source loop and memory', () => {
  it('keeps no message of a settled batch while its workers wait for the next', async () => {
    const gc = exposedGc();
    const queueUrl = await sqs.createQueue('settled-batches-let-go');
    // Every message the loop receives, held weakly: the test must not keep them itself.
    const received: WeakRef<Message>[] = [];
    const client = {
      send: async (command: unknown, options?: unknown) => {
        const response = await sqs.client.send(command as never, options as never);
        if (command instanceof ReceiveMessageCommand)
          for (const message of (response as { Messages?: Message[] }).Messages ?? [])
            received.push(new WeakRef(message));
        return response;
      },
    } as unknown as typeof sqs.client;
    let handled = 0;
    const loop = startEventSourceLoop({
      client,
      queueUrl,
      handler: async (event) => {
        handled += event.Records.length;
        return { batchItemFailures: [] };
      },
      // Each worker's next receive long-polls the empty queue for all of it: what it holds while
      // it waits, it holds for 20 s.
      waitTimeSeconds: 20,
      concurrency: 4,
      batchSize: 10,
    });
    for (let start = 0; start < 40; start += 10) {
      await sqs.client.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: Array.from({ length: 10 }, (_, i) => ({
            Id: String(i),
            MessageBody: `message ${start + i}: ${'x'.repeat(1_000)}`,
          })),
        }),
      );
    }
    await vi.waitFor(() => expect(handled).toBe(40), { timeout: 10_000, interval: 10 });
    // Every batch settled and deleted; the workers now long-poll an empty queue.
    await vi.waitFor(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        gc();
        expect(received.filter((message) => message.deref() !== undefined)).toHaveLength(0);
      },
      { timeout: 2_000, interval: 50 },
    );
    expect(received.length).toBeGreaterThanOrEqual(40);
    await loop.stop();
  });
});
