import { getEventListeners } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DiskQueue, startDiskQueue } from '../../shared/local/disk-queue/disk-queue.ts';
import { dependantSignals } from '../support/dependant-signals.ts';

let dir: string;
let queue: DiskQueue;
let queueUrl: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'disk-queue-signal-'));
  queue = await startDiskQueue({ path: join(dir, 'queue'), listen: false });
  queueUrl = await queue.createQueue('dispatch');
});

afterAll(async () => {
  await queue.close();
  await rm(dir, { recursive: true, force: true });
});

describe("a long poll of the disk queue, with the event source loop's signal for the whole run", () => {
  it('leaves nothing on that signal once answered, however many times it looked while waiting', async () => {
    // The loop's consumers pass one signal to every receive for as long as `start` runs.
    const run = new AbortController();
    const listenersBefore = getEventListeners(run.signal, 'abort').length;
    // Ten empty long polls of 1 s at once: each looks again every 250 ms.
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        queue.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1 }), {
          abortSignal: run.signal,
        }),
      ),
    );
    expect(answers.every((answer) => (answer.Messages ?? []).length === 0)).toBe(true);
    expect(dependantSignals(run.signal)).toBe(0);
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(listenersBefore);
  });

  it('still ends at once when that signal aborts', async () => {
    const run = new AbortController();
    const started = Date.now();
    const receiving = queue.client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 5 }),
      { abortSignal: run.signal },
    );
    setTimeout(() => run.abort(), 100);
    await expect(receiving).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
