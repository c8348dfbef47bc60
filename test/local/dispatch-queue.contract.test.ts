import fs from 'node:fs';
import fsPromises, { mkdtemp, readdir, rm } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { ClassicLevel } from 'classic-level';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { startDiskQueue } from '../../shared/local/disk-queue/disk-queue.ts';
import { type SqsEmulator, startSqsEmulator } from '../../shared/local/sqs-emulator.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'disk-queue-'));
  dirs.push(dir);
  return dir;
};

/** A data dir's queue as an earlier version kept it, in LevelDB: one message, `waiting body`, visible. */
async function earlierQueueDatabase(): Promise<string> {
  const path = await tempDir();
  const db = new ClassicLevel<string, string>(path, { valueEncoding: 'utf8' });
  await db.batch([
    {
      type: 'put',
      key: `dispatch!${String(Date.now()).padStart(15, '0')}!${'1'.padStart(24, '0')}!q`,
      value: JSON.stringify({ id: 'waiting', md5: 'x', sentAt: Date.now() }),
    },
    { type: 'put', key: 'dispatch#waiting', value: 'waiting body' },
  ]);
  await db.close();
  return path;
}

const receive = (sqs: SqsEmulator, url: string, visibility?: number) =>
  sqs.client
    .send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['All'],
        ...(visibility === undefined ? {} : { VisibilityTimeout: visibility }),
      }),
    )
    .then((r) => r.Messages ?? []);

const counts = async (sqs: SqsEmulator, url: string) => {
  const { Attributes } = await sqs.client.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }),
  );
  return {
    visible: Number(Attributes?.ApproximateNumberOfMessages),
    inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible),
  };
};

/** The SQS behaviour the local adapters rely on, run on every implementation. */
function dispatchQueueContract(name: string, start: () => Promise<SqsEmulator>) {
  describe(`dispatch queue contract: ${name}`, () => {
    it('hands out sent messages once, hides them while in flight and forgets deleted ones', async () => {
      const sqs = await start();
      try {
        const url = await sqs.createQueue('contract', { VisibilityTimeout: '30' });
        await sqs.client.send(
          new SendMessageBatchCommand({
            QueueUrl: url,
            Entries: ['a', 'b', 'c'].map((body, i) => ({ Id: String(i), MessageBody: body })),
          }),
        );
        const first = await receive(sqs, url);
        expect(first.map((m) => m.Body).sort()).toEqual(['a', 'b', 'c']);
        expect(first[0]?.Attributes?.ApproximateReceiveCount).toBe('1');
        expect(await receive(sqs, url)).toEqual([]);
        expect(await counts(sqs, url)).toEqual({ visible: 0, inFlight: 3 });
        await sqs.client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: url,
            Entries: first.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
          }),
        );
        expect(await counts(sqs, url)).toEqual({ visible: 0, inFlight: 0 });
      } finally {
        await sqs.close();
      }
    });

    it('hands out every message across many receives, and one made visible again at once', async () => {
      const sqs = await start();
      try {
        const url = await sqs.createQueue('drain');
        for (let batch = 0; batch < 3; batch += 1)
          await sqs.client.send(
            new SendMessageBatchCommand({
              QueueUrl: url,
              Entries: Array.from({ length: 10 }, (_, i) => ({
                Id: String(i),
                MessageBody: `m${batch * 10 + i}`,
              })),
            }),
          );
        const bodies: string[] = [];
        const first = await receive(sqs, url, 30);
        bodies.push(...first.map((m) => m.Body ?? ''));
        await sqs.client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: url,
            Entries: first.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })),
          }),
        );
        const second = await receive(sqs, url, 30);
        bodies.push(...second.map((m) => m.Body ?? ''));
        await sqs.client.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: url,
            ReceiptHandle: second[0]?.ReceiptHandle,
            VisibilityTimeout: 0,
          }),
        );
        bodies.push(...(await receive(sqs, url, 30)).map((m) => m.Body ?? ''));
        bodies.push(...(await receive(sqs, url, 30)).map((m) => m.Body ?? ''));
        expect(new Set(bodies)).toEqual(new Set(Array.from({ length: 30 }, (_, i) => `m${i}`)));
        expect(bodies.filter((body) => body === second[0]?.Body)).toHaveLength(2);
      } finally {
        await sqs.close();
      }
    });

    it('honours delays and returns a message whose visibility expired', async () => {
      const sqs = await start();
      try {
        const url = await sqs.createQueue('timing');
        await sqs.client.send(
          new SendMessageCommand({ QueueUrl: url, MessageBody: 'later', DelaySeconds: 1 }),
        );
        expect(await receive(sqs, url)).toEqual([]);
        await new Promise((resolve) => setTimeout(resolve, 1100));
        const [taken] = await receive(sqs, url, 1);
        expect(taken?.Body).toBe('later');
        await new Promise((resolve) => setTimeout(resolve, 1100));
        const [again] = await receive(sqs, url);
        expect(again?.Body).toBe('later');
        expect(again?.Attributes?.ApproximateReceiveCount).toBe('2');
      } finally {
        await sqs.close();
      }
    });

    it('ends a long poll at once when its request is aborted', async () => {
      const sqs = await start();
      try {
        const url = await sqs.createQueue('abort');
        const abort = new AbortController();
        const polling = sqs.client.send(
          new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 20 }),
          { abortSignal: abort.signal },
        );
        setTimeout(() => abort.abort(), 100);
        const started = Date.now();
        await expect(polling).rejects.toMatchObject({ name: 'AbortError' });
        expect(Date.now() - started).toBeLessThan(2000);
      } finally {
        await sqs.close();
      }
    });
  });
}

dispatchQueueContract('fauxqs (in memory)', startSqsEmulator);
dispatchQueueContract('log files (on disk), called in process', async () =>
  startDiskQueue({ path: await tempDir() }),
);
dispatchQueueContract('log files (on disk), called in process, on no port (start)', async () =>
  startDiskQueue({ path: await tempDir(), listen: false }),
);
dispatchQueueContract('log files (on disk), over HTTP', async () =>
  startDiskQueue({ path: await tempDir(), inProcess: false }),
);

describe('disk queue', () => {
  it('on no port, names its queues under an endpoint that reaches nothing', async () => {
    const sqs = await startDiskQueue({ path: await tempDir(), listen: false });
    try {
      expect(await sqs.createQueue('q')).toBe('http://local-queue.invalid/000000000000/q');
    } finally {
      await sqs.close();
    }
    await expect(
      startDiskQueue({ path: await tempDir(), inProcess: false, listen: false }),
    ).rejects.toThrow('without listening');
  });

  it('wakes a waiting long poll as soon as a message is sent, without waiting for its next look', async () => {
    // The clock never moves: only the send can end this poll before its 20 s.
    const sqs = await startDiskQueue({ path: await tempDir(), clock: new ManualClock() });
    try {
      const url = await sqs.createQueue('wake');
      const polling = sqs.client.send(
        new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 20, MaxNumberOfMessages: 10 }),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      await sqs.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'now' }));
      const { Messages } = await polling;
      expect(Messages?.map((m) => m.Body)).toEqual(['now']);
    } finally {
      await sqs.close();
    }
  });

  it('keeps unreceived and in-flight messages across a restart, in flight ones visible at once', async () => {
    const path = await tempDir();
    const before = await startDiskQueue({ path });
    const url = await before.createQueue('dispatch', { VisibilityTimeout: '180' });
    await before.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'taken' }));
    expect((await receive(before, url)).map((m) => m.Body)).toEqual(['taken']);
    await before.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'kept' }));
    await before.close();

    const after = await startDiskQueue({ path });
    try {
      const again = await after.createQueue('dispatch', { VisibilityTimeout: '180' });
      expect(await counts(after, again)).toEqual({ visible: 2, inFlight: 0 });
      const received = await receive(after, again);
      expect(received.map((m) => m.Body).sort()).toEqual(['kept', 'taken']);
      const taken = received.find((m) => m.Body === 'taken');
      expect(taken?.Attributes?.ApproximateReceiveCount).toBe('2');
    } finally {
      await after.close();
    }
  });

  it('counts a backlog of messages and ignores a stale receipt handle', async () => {
    const sqs = await startDiskQueue({ path: await tempDir() });
    try {
      const url = await sqs.createQueue('backlog', { VisibilityTimeout: '30' });
      const send = (count: number) =>
        sqs.client.send(
          new SendMessageBatchCommand({
            QueueUrl: url,
            Entries: Array.from({ length: count }, (_, i) => ({ Id: String(i), MessageBody: 'm' })),
          }),
        );
      await send(5);
      const stale = await receive(sqs, url, 0);
      const current = await receive(sqs, url, 30);
      expect(current).toHaveLength(5);
      for (let batch = 0; batch < 30; batch++) await send(10);
      expect(await counts(sqs, url)).toEqual({ visible: 300, inFlight: 5 });
      const entries = (messages: typeof stale) =>
        messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle }));
      await sqs.client.send(
        new DeleteMessageBatchCommand({ QueueUrl: url, Entries: entries(stale) }),
      );
      expect(await counts(sqs, url)).toEqual({ visible: 300, inFlight: 5 });
      await sqs.client.send(
        new DeleteMessageBatchCommand({ QueueUrl: url, Entries: entries(current) }),
      );
      expect(await counts(sqs, url)).toEqual({ visible: 300, inFlight: 0 });
    } finally {
      await sqs.close();
    }
  });

  it('leaves the database of an earlier version whole or gone when its deletion stops part way, so the next start moves its backlog', async () => {
    const path = await earlierQueueDatabase();

    // The process stops while the database's files are deleted: all but CURRENT are gone.
    const remove = fsPromises.rm;
    const spy = vi.spyOn(fsPromises, 'rm').mockImplementation(async (file, options) => {
      if (String(file).endsWith('CURRENT')) throw new Error('stopped');
      await remove(file, options);
    });
    syncBuiltinESMExports();
    try {
      await expect(startDiskQueue({ path })).rejects.toThrow('stopped');
    } finally {
      spy.mockRestore();
      syncBuiltinESMExports();
    }

    const sqs = await startDiskQueue({ path });
    try {
      const url = await sqs.createQueue('dispatch');
      const received = await receive(sqs, url);
      expect(new Set(received.map((m) => m.Body))).toEqual(new Set(['waiting body']));
      expect((await readdir(path, { withFileTypes: true })).filter((e) => e.isFile())).toEqual([]);
    } finally {
      await sqs.close();
    }
  });

  it('has the backlog it moves from the database of an earlier version, and the names of its files, on the device before it deletes that database', async () => {
    const path = await earlierQueueDatabase();

    // A power loss may keep the database's deletion yet lose the moved messages' writes that
    // were not synced before it, and the names of the queue's new directory and first file until
    // the directories holding them are synced: the messages, on disk for as long as the backlog
    // waited, would be gone from both.
    const calls: string[] = [];
    const { fdatasyncSync, fsyncSync } = fs;
    const remove = fsPromises.rm;
    const syncs = vi.spyOn(fs, 'fdatasyncSync').mockImplementation((fd) => {
      calls.push('file sync');
      fdatasyncSync(fd);
    });
    const fullSyncs = vi.spyOn(fs, 'fsyncSync').mockImplementation((fd) => {
      calls.push(fs.fstatSync(fd).isDirectory() ? 'directory sync' : 'file sync');
      fsyncSync(fd);
    });
    const removes = vi.spyOn(fsPromises, 'rm').mockImplementation(async (file, options) => {
      calls.push(`rm ${String(file).split('/').at(-1)}`);
      await remove(file, options);
    });
    syncBuiltinESMExports();
    let sqs: Awaited<ReturnType<typeof startDiskQueue>> | undefined;
    try {
      sqs = await startDiskQueue({ path });
    } finally {
      syncs.mockRestore();
      fullSyncs.mockRestore();
      removes.mockRestore();
      syncBuiltinESMExports();
    }
    try {
      expect(calls).toContain('rm CURRENT');
      for (const sync of ['file sync', 'directory sync']) {
        expect(calls.indexOf(sync)).toBeGreaterThanOrEqual(0);
        expect(calls.indexOf(sync)).toBeLessThan(calls.indexOf('rm CURRENT'));
      }
      const url = await sqs.createQueue('dispatch');
      expect((await receive(sqs, url)).map((m) => m.Body)).toEqual(['waiting body']);
    } finally {
      await sqs.close();
    }
  });

  it('moves a backlog an earlier version left in LevelDB into the logs, then deletes the database', async () => {
    const path = await tempDir();
    const now = Date.now();
    const key = (visibleAt: number, order: number, state: 'q' | 'f') =>
      `dispatch!${String(visibleAt).padStart(15, '0')}!${String(order).padStart(24, '0')}!${state}`;
    const attributes = (id: string, extra: object = {}) =>
      JSON.stringify({
        id,
        md5: 'x',
        sentAt: now - 5_000,
        receiveCount: 1,
        firstReceiveAt: 0,
        ...extra,
      });
    const db = new ClassicLevel<string, string>(path, { valueEncoding: 'utf8' });
    await db.batch([
      { type: 'put', key: key(now - 5_000, 1, 'q'), value: attributes('waiting') },
      { type: 'put', key: 'dispatch#waiting', value: 'waiting body' },
      { type: 'put', key: key(now + 170_000, 2, 'f'), value: attributes('in-flight') },
      { type: 'put', key: 'dispatch#in-flight', value: 'in-flight body' },
      {
        type: 'put',
        key: key(now - 6_000, 3, 'q'),
        value: attributes('inline', { body: 'inline body' }),
      },
      { type: 'put', key: key(now + 600_000, 4, 'q'), value: attributes('delayed') },
      { type: 'put', key: 'dispatch#delayed', value: 'delayed body' },
    ]);
    await db.close();

    const sqs = await startDiskQueue({ path });
    try {
      const url = await sqs.createQueue('dispatch');
      const received = await receive(sqs, url);
      expect(received.map((m) => [m.MessageId, m.Body]).sort()).toEqual([
        ['in-flight', 'in-flight body'],
        ['inline', 'inline body'],
        ['waiting', 'waiting body'],
      ]);
      expect(await counts(sqs, url)).toEqual({ visible: 0, inFlight: 3 });
      expect((await readdir(path, { withFileTypes: true })).filter((e) => e.isFile())).toEqual([]);
    } finally {
      await sqs.close();
    }
  });
});
