import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type DiskQueue, startDiskQueue } from '../../shared/local/disk-queue/disk-queue.ts';
import { LocalEventRouter } from '../../shared/local/event-router.ts';
import { dispatchEventPattern } from '../../shared/publish/routing-rule.ts';
import { makeEvent } from '../publish/fixtures.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The queue's log appends fail as on a full disk (ENOSPC, nothing written) until undone. */
function diskFull(): () => void {
  const spy = vi.spyOn(fs, 'writeSync').mockImplementation(() => {
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  });
  // The ESM named export `writeSync` the segment calls follows the module object's.
  syncBuiltinESMExports();
  let undone = false;
  const undo = () => {
    if (undone) return;
    undone = true;
    spy.mockRestore();
    syncBuiltinESMExports();
  };
  cleanups.push(undo);
  return undo;
}

async function openQueue(path: string): Promise<{ queue: DiskQueue; url: string }> {
  const queue = await startDiskQueue({ path });
  const url = await queue.createQueue('dispatch', { VisibilityTimeout: '180' });
  return { queue, url };
}

async function receive(queue: DiskQueue, url: string): Promise<Message[]> {
  const answer = await queue.client.send(
    new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
  );
  return answer.Messages ?? [];
}

async function depth(queue: DiskQueue, url: string) {
  const { Attributes } = await queue.client.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
  );
  return {
    visible: Number(Attributes?.ApproximateNumberOfMessages),
    inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible),
  };
}

/** The events' ids in the envelopes of `messages`. */
const eventIds = (messages: readonly Message[]) =>
  messages.map((message) => (JSON.parse(message.Body!) as { detail: { id: string } }).detail.id);

describe('the local dispatch queue on a full disk', () => {
  it('refuses a publish whose append fails, keeps nothing of it, and takes the next once there is room, also after a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'queue-full-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'queue');
    let { queue, url } = await openQueue(path);
    cleanups.push(() => queue.close());
    const router = new LocalEventRouter({
      client: queue.client,
      routes: [{ name: 'dispatch', pattern: dispatchEventPattern(), queueUrl: url }],
    });
    const uncaught: unknown[] = [];
    const note = (error: unknown) => uncaught.push(error);
    process.on('unhandledRejection', note);
    process.on('uncaughtException', note);
    cleanups.push(() => {
      process.off('unhandledRejection', note);
      process.off('uncaughtException', note);
    });

    const refused = [makeEvent(1), makeEvent(2)];
    const room = diskFull();
    // Not published: the poll that found them does not commit its page, and finds them again.
    await expect(router.publish(refused)).rejects.toThrow(/ENOSPC/);
    room();
    expect(await depth(queue, url)).toEqual({ visible: 0, inFlight: 0 });

    const taken = [makeEvent(3), makeEvent(4)];
    expect(await router.publish(taken)).toMatchObject({ published: 2, failures: [] });
    expect(eventIds(await receive(queue, url))).toEqual(taken.map((event) => event.id));
    await queue.close();
    ({ queue, url } = await openQueue(path));
    expect(eventIds(await receive(queue, url))).toEqual(taken.map((event) => event.id));
    expect(uncaught).toEqual([]);
  });

  it('leaves the messages of a receive it cannot note visible, not hidden for the visibility timeout', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'queue-full-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'queue');
    const { queue, url } = await openQueue(path);
    cleanups.push(() => queue.close());
    const router = new LocalEventRouter({
      client: queue.client,
      routes: [{ name: 'dispatch', pattern: dispatchEventPattern(), queueUrl: url }],
    });
    const events = [makeEvent(1), makeEvent(2)];
    await router.publish(events);

    const room = diskFull();
    await expect(receive(queue, url)).rejects.toThrow(/ENOSPC/);
    room();
    // Room again: the next receive takes them, where they were left in flight for 180 s.
    expect(await depth(queue, url)).toEqual({ visible: 2, inFlight: 0 });
    const messages = await receive(queue, url);
    expect(eventIds(messages)).toEqual(events.map((event) => event.id));
    expect(messages.map((message) => message.Attributes?.ApproximateReceiveCount)).toEqual([
      '1',
      '1',
    ]);
  });

  it('keeps a message whose delete it cannot note: a restart hands it out again, never loses one not deleted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'queue-full-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'queue');
    let { queue, url } = await openQueue(path);
    cleanups.push(() => queue.close());
    const router = new LocalEventRouter({
      client: queue.client,
      routes: [{ name: 'dispatch', pattern: dispatchEventPattern(), queueUrl: url }],
    });
    const events = [makeEvent(1), makeEvent(2)];
    await router.publish(events);
    const [first, second] = await receive(queue, url);

    const room = diskFull();
    await expect(
      queue.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: url,
          Entries: [{ Id: '0', ReceiptHandle: first!.ReceiptHandle! }],
        }),
      ),
    ).rejects.toThrow(/ENOSPC/);
    room();
    await queue.close();
    ({ queue, url } = await openQueue(path));
    expect(eventIds(await receive(queue, url)).sort()).toEqual(
      [first, second].map((message) => eventIds([message!])[0]).sort(),
    );
  });
});
