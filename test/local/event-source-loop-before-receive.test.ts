import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEventSourceLoop } from '../../shared/local/event-source-loop.ts';
import { type SqsEmulator, startSqsEmulator } from '../../shared/local/sqs-emulator.ts';

let sqs: SqsEmulator;

beforeAll(async () => {
  sqs = await startSqsEmulator();
});

afterAll(async () => {
  await sqs.close();
});

/** A gate the test opens: `beforeReceive` waits on it, counting the waits. */
function testGate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let closed = true;
  const gate = {
    waits: 0,
    open: () => {
      closed = false;
      open();
    },
    beforeReceive: async (signal: AbortSignal) => {
      gate.waits++;
      if (!closed) return;
      await Promise.race([
        opened,
        new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())),
      ]);
    },
  };
  return gate;
}

// The bulk dispatch lane waits while bulk reading has a page in hand (see BulkPageWork).
describe('the event source loop with a wait before each receive', () => {
  it('takes no message while the wait lasts, and every message once it ends', async () => {
    const queueUrl = await sqs.createQueue('before-receive');
    await sqs.client.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Array.from({ length: 5 }, (_, n) => ({ Id: String(n), MessageBody: `m${n}` })),
      }),
    );
    const gate = testGate();
    const received: string[] = [];
    const loop = startEventSourceLoop({
      client: sqs.client,
      queueUrl,
      handler: async (event) => {
        received.push(...event.Records.map((record) => record.body));
        return { batchItemFailures: [] };
      },
      waitTimeSeconds: 1,
      concurrency: 2,
      beforeReceive: gate.beforeReceive,
    });
    // The worker whose turn it is to receive waits; the other waits for its turn behind it.
    await vi.waitFor(() => expect(gate.waits).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received).toEqual([]);
    gate.open();
    await vi.waitFor(() => expect(received.sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']));
    await loop.stop();
  });

  it('stops while the wait lasts', async () => {
    const queueUrl = await sqs.createQueue('before-receive-stop');
    const gate = testGate();
    const loop = startEventSourceLoop({
      client: sqs.client,
      queueUrl,
      handler: async () => ({ batchItemFailures: [] }),
      waitTimeSeconds: 1,
      beforeReceive: gate.beforeReceive,
    });
    await vi.waitFor(() => expect(gate.waits).toBe(1));
    await loop.stop();
  });

  it('takes no batch once the wait is back, though a worker was waiting for its turn when it was not', async () => {
    const queueUrl = await sqs.createQueue('before-receive-closes');
    await sqs.client.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Array.from({ length: 10 }, (_, n) => ({ Id: String(n), MessageBody: `m${n}` })),
      }),
    );
    // Open at first; the first batch's handler closes it (a page of reading in hand again).
    let closed = false;
    let reopen = () => {};
    const reopened = new Promise<void>((resolve) => {
      reopen = resolve;
    });
    const received: string[] = [];
    const loop = startEventSourceLoop({
      client: sqs.client,
      queueUrl,
      batchSize: 5,
      handler: async (event) => {
        closed = true;
        received.push(...event.Records.map((record) => record.body));
        return { batchItemFailures: [] };
      },
      waitTimeSeconds: 1,
      concurrency: 2,
      beforeReceive: async (signal) => {
        if (!closed) return;
        await Promise.race([
          reopened,
          new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())),
        ]);
      },
    });
    await vi.waitFor(() => expect(received).toHaveLength(5));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received).toHaveLength(5);
    closed = false;
    reopen();
    await vi.waitFor(() => expect(received).toHaveLength(10));
    await loop.stop();
  });
});
