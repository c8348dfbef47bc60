import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { type DiskQueue, startDiskQueue } from '../../shared/local/disk-queue/disk-queue.ts';
import { deliveryMessage } from '../../shared/webhooks/messages.ts';
import { delaySecondsUntil, SqsDeliveryQueue } from '../../shared/webhooks/queue.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A disk queue on a manual clock, and the dispatcher's adapter sending to it as `start`'s does. */
async function dueAtQueue() {
  const dir = await mkdtemp(join(tmpdir(), 'disk-queue-due-at-'));
  const clock = new ManualClock(Date.UTC(2026, 11, 3, 12, 0, 0, 0));
  const queue: DiskQueue = await startDiskQueue({ path: join(dir, 'queue'), clock, listen: false });
  cleanup.push(
    () => rm(dir, { recursive: true, force: true }),
    () => queue.close(),
  );
  const url = await queue.createQueue('dispatch');
  const sender = new SqsDeliveryQueue(queue.client, url, { clock, sendDueAt: true });
  /** Sends a delivery's message due `inMs` from now, with the whole seconds SQS would take. */
  const sendDueIn = async (inMs: number) => {
    const dueAt = clock.now() + inMs;
    const message = deliveryMessage({ id: 'dlv_1', subscriptionId: 'sub_1' }, 'c-1');
    const unsent = await sender.sendBatch([
      { message, delaySeconds: delaySecondsUntil(dueAt, clock.now()), dueAt },
    ]);
    expect(unsent).toEqual([]);
  };
  const receive = (waitSeconds: number) =>
    queue.client
      .send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: waitSeconds }))
      .then((answer) => answer.Messages ?? []);
  return { clock, sendDueIn, receive };
}

describe('the local dispatch queue and a message’s due time', () => {
  it('makes a message visible at its due time to the millisecond, not at the whole second SQS would round it to', async () => {
    const { clock, sendDueIn, receive } = await dueAtQueue();
    await sendDueIn(4_300);
    await clock.advance(4_299);
    expect(await receive(0)).toHaveLength(0);
    await clock.advance(1);
    expect(await receive(0)).toHaveLength(1);
  });

  it('answers a waiting long poll as the message comes due', async () => {
    const { clock, sendDueIn, receive } = await dueAtQueue();
    const start = clock.now();
    await sendDueIn(300);
    let answeredAt: number | undefined;
    const polled = receive(5).then((messages) => {
      answeredAt = clock.now();
      return messages;
    });
    await clock.advance(300);
    await clock.advance(0);
    expect(answeredAt).toBe(start + 300);
    expect(await polled).toHaveLength(1);
  });
});
