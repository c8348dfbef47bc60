import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type SqsBatchHandler,
  startEventSourceLoop,
} from '../../shared/local/event-source-loop.ts';
import { MessageBudget } from '../../shared/local/message-budget.ts';
import { type SqsEmulator, startSqsEmulator } from '../../shared/local/sqs-emulator.ts';

let sqs: SqsEmulator;

beforeAll(async () => {
  sqs = await startSqsEmulator();
});

afterAll(async () => {
  await sqs.close();
});

async function send(queueUrl: string, count: number): Promise<void> {
  for (let start = 0; start < count; start += 10) {
    const entries = Array.from({ length: Math.min(10, count - start) }, (_, i) => ({
      Id: String(i),
      MessageBody: `m${start + i}`,
    }));
    await sqs.client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
  }
}

/** A handler that holds every batch until `release`, counting batches and messages held. */
function holdingHandler() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const held = { batches: 0, messages: 0 };
  return {
    held,
    release,
    handler: async (event: { Records: unknown[] }) => {
      held.batches++;
      held.messages += event.Records.length;
      await released;
      return { batchItemFailures: [] };
    },
  };
}

/** Six workers, batches of up to 10, and a budget of two full batches' messages. */
function budgetedLoop(queueUrl: string, handler: SqsBatchHandler) {
  return startEventSourceLoop({
    client: sqs.client,
    queueUrl,
    handler,
    waitTimeSeconds: 1,
    concurrency: 6,
    batchSize: 10,
    maxMessagesInFlight: 20,
  });
}

describe('the event source loop with a message budget', () => {
  it('runs many small batches at once: a batch that waits does not hold the others', async () => {
    const queueUrl = await sqs.createQueue('budget-small');
    const { held, release, handler } = holdingHandler();
    const loop = budgetedLoop(queueUrl, handler);
    // One message at a time, as a quiet lane gets them: each is a batch of its own.
    for (let n = 0; n < 6; n++) {
      await send(queueUrl, 1);
      await vi.waitFor(() => expect(held.batches).toBe(n + 1), { timeout: 5_000, interval: 10 });
    }
    expect(held.messages).toBe(6);
    release();
    await loop.stop();
  });

  it('holds no more messages than the budget however many workers wait', async () => {
    const queueUrl = await sqs.createQueue('budget-burst');
    await send(queueUrl, 60);
    const { held, release, handler } = holdingHandler();
    const loop = budgetedLoop(queueUrl, handler);
    await vi.waitFor(() => expect(held.messages).toBe(20), { timeout: 5_000, interval: 10 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(held.messages).toBe(20);
    expect(held.batches).toBe(2);
    release();
    await loop.stop();
  });
});

describe('MessageBudget', () => {
  it('gives what is left, waits while none is, and wakes on a give or an abort', async () => {
    const abort = new AbortController();
    const budget = new MessageBudget(5, abort.signal);
    expect(await budget.take(3)).toBe(3);
    expect(await budget.take(3)).toBe(2);
    const waiting = budget.take(4);
    budget.give(1);
    expect(await waiting).toBe(1);
    const aborted = [budget.take(1), budget.take(1)];
    abort.abort();
    expect(await Promise.all(aborted)).toEqual([0, 0]);
  });
});
