import { spawn } from 'node:child_process';
import fs, { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { LogQueueStore } from '../../shared/local/disk-queue/log-queue-store.ts';

const dirs: string[] = [];
const stores: LogQueueStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'log-queue-'));
  dirs.push(dir);
  return dir;
}

function openStore(dir: string, clock: ManualClock, segmentBytes?: number): LogQueueStore {
  const store = new LogQueueStore(dir, 'dispatch', clock, segmentBytes);
  store.open();
  stores.push(store);
  return store;
}

/** Closes `store` as a process that stops would (its files stay). */
function stop(store: LogQueueStore): void {
  store.close();
  stores.splice(stores.indexOf(store), 1);
}

const bodies = (messages: ReadonlyArray<{ body: string }>) => messages.map((m) => m.body);
const logFiles = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.log'))
    .sort();

describe('LogQueueStore', () => {
  it('shows the bodies of every message held, delayed and in flight too, after a restart, changing nothing', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const first = openStore(dir, clock);
    first.send([
      { body: '{"kind":"delivery","deliveryId":"d1"}', delaySeconds: 900 },
      { body: 'envelope', delaySeconds: 0 },
      { body: '{"kind":"delivery","deliveryId":"d2"}', delaySeconds: 0 },
      { body: '{"kind":"delivery","deliveryId":"d3"}', delaySeconds: 0 },
    ]);
    const taken = first.receive(2, 30_000);
    expect(first.delete([taken[0]!.receiptHandle])).toBe(1);
    stop(first);

    const store = openStore(dir, clock);
    const shown = (marker?: string) => {
      const seen: string[] = [];
      store.forEachBody((body) => seen.push(body), marker);
      return seen.sort();
    };
    expect(shown()).toEqual([
      '{"kind":"delivery","deliveryId":"d1"}',
      '{"kind":"delivery","deliveryId":"d2"}',
      '{"kind":"delivery","deliveryId":"d3"}',
    ]);
    expect(shown('"deliveryId":"d3"')).toEqual(['{"kind":"delivery","deliveryId":"d3"}']);
    expect(store.counts()).toEqual({ visible: 2, inFlight: 0, delayed: 1, delayedInLine: 0 });
    const received = store.receive(10, 30_000);
    expect(bodies(received)).toEqual([
      '{"kind":"delivery","deliveryId":"d2"}',
      '{"kind":"delivery","deliveryId":"d3"}',
    ]);
    expect(received.map((message) => message.receiveCount)).toEqual([2, 1]);
  });

  it('hands out messages in the order they become visible and skips those still delayed', async () => {
    const clock = new ManualClock();
    const store = openStore(await tempDir(), clock);
    store.send([
      { body: 'later', delaySeconds: 5 },
      { body: 'now', delaySeconds: 0 },
      { body: 'next', delaySeconds: 0 },
    ]);

    expect(bodies(store.receive(10, 30_000))).toEqual(['now', 'next']);
    expect(store.counts()).toEqual({ visible: 0, inFlight: 2, delayed: 1, delayedInLine: 0 });
    await clock.advance(5_000);
    expect(bodies(store.receive(10, 30_000))).toEqual(['later']);
  });

  it("counts delayed messages waiting in an endpoint's line apart from delayed retries, also after a restart", async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const before = openStore(dir, clock);
    before.send([
      { body: 'retry', delaySeconds: 5 },
      { body: 'in line', delaySeconds: 5, inLine: true },
      { body: 'due', delaySeconds: 0, inLine: true },
    ]);
    expect(before.counts()).toEqual({ visible: 1, inFlight: 0, delayed: 2, delayedInLine: 1 });
    stop(before);

    const after = openStore(dir, clock);
    expect(after.counts()).toEqual({ visible: 1, inFlight: 0, delayed: 2, delayedInLine: 1 });
    await clock.advance(5_000);
    expect(after.counts()).toEqual({ visible: 3, inFlight: 0, delayed: 0, delayedInLine: 0 });
  });

  it('hands a message out again once its visibility timeout passes, with a new handle; the old one deletes nothing', async () => {
    const clock = new ManualClock();
    const store = openStore(await tempDir(), clock);
    store.send([{ body: 'm', delaySeconds: 0 }]);
    const [first] = store.receive(1, 1_000);
    expect(store.receive(1, 1_000)).toEqual([]);
    await clock.advance(1_000);
    const [second] = store.receive(1, 1_000);

    expect(second).toMatchObject({ id: first!.id, body: 'm', receiveCount: 2 });
    expect(store.delete([first!.receiptHandle])).toBe(0);
    expect(store.delete([second!.receiptHandle])).toBe(1);
    expect(store.counts()).toEqual({ visible: 0, inFlight: 0, delayed: 0, delayedInLine: 0 });
  });

  it('keeps a received message invisible for as long as its visibility is changed to, and its handle current', async () => {
    const clock = new ManualClock();
    const store = openStore(await tempDir(), clock);
    store.send([{ body: 'retry', delaySeconds: 0 }]);
    const [message] = store.receive(1, 30_000);

    expect(store.changeVisibility(message!.receiptHandle, 60)).toBe(message!.receiptHandle);
    await clock.advance(59_999);
    expect(store.receive(1, 30_000)).toEqual([]);
    await clock.advance(1);
    expect(bodies(store.receive(1, 30_000))).toEqual(['retry']);
    expect(store.changeVisibility('dispatch!0!999', 0)).toBeUndefined();
  });

  it('hands a message left in flight by a process that is gone out again in its first place, before later ones', async () => {
    const dir = await tempDir();
    const clock = new ManualClock(1_000);
    const before = openStore(dir, clock);
    before.send([{ body: 'first', delaySeconds: 0 }]);
    await clock.advance(10);
    before.send([{ body: 'second', delaySeconds: 0 }]);
    const [taken] = before.receive(1, 180_000);
    before.delete(before.receive(1, 180_000).map((m) => m.receiptHandle));
    before.send([
      { body: 'third', delaySeconds: 0 },
      { body: 'delayed', delaySeconds: 60 },
    ]);
    stop(before);

    const after = openStore(dir, clock);
    expect(after.counts()).toEqual({ visible: 2, inFlight: 0, delayed: 1, delayedInLine: 0 });
    const received = after.receive(10, 30_000);
    expect(bodies(received)).toEqual(['first', 'third']);
    expect(received[0]).toMatchObject({ id: taken!.id, md5: taken!.md5, sentAt: 1_000 });
  });

  it('drops a record the last write left short and appends after the last whole one', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const before = openStore(dir, clock);
    before.send([{ body: 'whole', delaySeconds: 0 }]);
    stop(before);
    const [file] = logFiles(dir);
    appendFileSync(join(dir, file!), Buffer.from([200, 0, 0, 0, 0x53, 1, 2]));

    const after = openStore(dir, clock);
    after.send([{ body: 'after', delaySeconds: 0 }]);
    stop(after);
    const again = openStore(dir, clock);
    expect(bodies(again.receive(10, 30_000))).toEqual(['whole', 'after']);
  });

  it('takes back what a write the disk cut short left in the file: later sends are read back, also after a restart', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const before = openStore(dir, clock);
    before.send([{ body: 'first', delaySeconds: 0 }]);
    // The disk fills during the next write: half of it reaches the file, then ENOSPC.
    const writeSync = fs.writeSync;
    const spy = vi
      .spyOn(fs, 'writeSync')
      .mockImplementation((fd: number, buffer: NodeJS.ArrayBufferView | string, offset, length) => {
        if (typeof buffer === 'string' || typeof length !== 'number') throw new Error('unexpected');
        writeSync(fd, buffer, offset, Math.floor(length / 2));
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
          code: 'ENOSPC',
        });
      });
    // The ESM named export `writeSync` the segment calls follows the module object's.
    syncBuiltinESMExports();
    try {
      expect(() => before.send([{ body: 'refused', delaySeconds: 0 }])).toThrow(/ENOSPC/);
    } finally {
      spy.mockRestore();
      syncBuiltinESMExports();
    }

    // Space is back: the next send is stored, and read back where it was written.
    before.send([{ body: 'after', delaySeconds: 0 }]);
    expect(bodies(before.receive(10, 30_000))).toEqual(['first', 'after']);
    stop(before);
    const after = openStore(dir, clock);
    expect(bodies(after.receive(10, 30_000))).toEqual(['first', 'after']);
  });

  it('removes a file once every message in it is deleted, and copies forward the few an old file still holds', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const store = openStore(dir, clock, 4_096);
    const body = 'x'.repeat(1_000);
    store.send([{ body: 'held back', delaySeconds: 3_600 }]);
    for (let round = 0; round < 12; round++) {
      store.send([{ body, delaySeconds: 0 }]);
      store.delete(store.receive(10, 30_000).map((m) => m.receiptHandle));
    }

    // Twelve 1 KB messages went through 4 KB files; only the newest files remain, the delayed
    // message copied into one of them.
    expect(logFiles(dir).length).toBeLessThanOrEqual(3);
    stop(store);
    const after = openStore(dir, clock, 4_096);
    expect(after.counts()).toEqual({ visible: 0, inFlight: 0, delayed: 1, delayedInLine: 0 });
    await clock.advance(3_600_000);
    expect(bodies(after.receive(10, 30_000))).toEqual(['held back']);
  });

  it('keeps a message copied forward once, should the old file outlive the copy', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const store = openStore(dir, clock, 4_096);
    store.send([{ body: 'kept', delaySeconds: 0 }]);
    for (const fill of ['x', 'y', 'z']) store.send([{ body: fill.repeat(5_000), delaySeconds: 0 }]);
    const [oldest, ...newer] = logFiles(dir);
    expect(newer).toHaveLength(2);
    const oldestBytes = readFileSync(join(dir, oldest!));

    // The big ones go; the oldest file, holding only 'kept' then, is copied forward and removed.
    const received = store.receive(4, 30_000);
    store.delete(received.filter((m) => m.body !== 'kept').map((m) => m.receiptHandle));
    expect(logFiles(dir)).toHaveLength(1);
    expect(logFiles(dir)).not.toContain(oldest);
    stop(store);

    writeFileSync(join(dir, oldest!), oldestBytes);
    const after = openStore(dir, clock, 4_096);
    expect(after.counts()).toEqual({ visible: 1, inFlight: 0, delayed: 0, delayedInLine: 0 });
    expect(bodies(after.receive(10, 30_000))).toEqual(['kept']);
  });

  it('has a copied forward message on the device before the file it leaves is removed', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const store = openStore(dir, clock, 4_096);
    store.send([{ body: 'kept', delaySeconds: 0 }]);
    for (const fill of ['x', 'y', 'z']) store.send([{ body: fill.repeat(5_000), delaySeconds: 0 }]);
    const [oldest] = logFiles(dir);
    const received = store.receive(4, 30_000);

    // A power loss may keep a removal yet lose data written just before it that was not synced:
    // the copy must be synced first, or the message, on disk for hours, would go with its file.
    // The file the copy goes to was created since the directory was last synced: its name, in
    // the directory, must be on the device too before the removal.
    const calls: string[] = [];
    const { fdatasyncSync, fsyncSync, rmSync } = fs;
    const syncs = vi.spyOn(fs, 'fdatasyncSync').mockImplementation((fd) => {
      calls.push('sync');
      fdatasyncSync(fd);
    });
    const directorySyncs = vi.spyOn(fs, 'fsyncSync').mockImplementation((fd) => {
      if (fs.fstatSync(fd).isDirectory()) calls.push('directory sync');
      fsyncSync(fd);
    });
    const removes = vi.spyOn(fs, 'rmSync').mockImplementation((path, options) => {
      calls.push(`rm ${String(path).split('/').at(-1)}`);
      rmSync(path, options);
    });
    syncBuiltinESMExports();
    try {
      store.delete(received.filter((m) => m.body !== 'kept').map((m) => m.receiptHandle));
    } finally {
      syncs.mockRestore();
      directorySyncs.mockRestore();
      removes.mockRestore();
      syncBuiltinESMExports();
    }
    expect(logFiles(dir)).not.toContain(oldest);
    expect(calls.indexOf('sync')).toBeGreaterThanOrEqual(0);
    expect(calls.indexOf('sync')).toBeLessThan(calls.indexOf(`rm ${oldest}`));
    expect(calls.indexOf('directory sync')).toBeGreaterThanOrEqual(0);
    expect(calls.indexOf('directory sync')).toBeLessThan(calls.indexOf(`rm ${oldest}`));
  });

  it('refuses a directory another running process has open, and takes over the lock of one that stopped', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const running = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    const stopped = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => stopped.once('exit', resolve));
    try {
      writeFileSync(join(dir, 'LOCK'), String(running.pid));
      expect(() => openStore(dir, clock)).toThrow(/in use by process/);

      writeFileSync(join(dir, 'LOCK'), String(stopped.pid));
      const store = openStore(dir, clock);
      expect(readFileSync(join(dir, 'LOCK'), 'utf8').split('\n')[0]).toBe(String(process.pid));
      expect(() => openStore(dir, clock)).toThrow(/already open in this process/);
      stop(store);
      expect(readdirSync(dir)).not.toContain('LOCK');
    } finally {
      running.kill();
    }
  });

  it('a handle of a deleted message touches nothing, though a later message took its place in memory', async () => {
    const clock = new ManualClock();
    const store = openStore(await tempDir(), clock);
    store.send([{ body: 'first', delaySeconds: 0 }]);
    const [first] = store.receive(1, 30_000);
    expect(store.delete([first!.receiptHandle])).toBe(1);

    store.send([{ body: 'second', delaySeconds: 0 }]);
    const [second] = store.receive(1, 30_000);
    expect(second!.body).toBe('second');
    expect(store.delete([first!.receiptHandle])).toBe(0);
    expect(store.changeVisibility(first!.receiptHandle, 0)).toBeUndefined();
    expect(store.counts()).toEqual({ visible: 0, inFlight: 1, delayed: 0, delayedInLine: 0 });
    expect(store.delete([second!.receiptHandle])).toBe(1);
  });

  it('numbers a message sent after a restart above every earlier one, though their files are gone', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const before = openStore(dir, clock, 1_024);
    before.send([{ body: 'x'.repeat(2_000), delaySeconds: 0 }]);
    before.send([{ body: 'y'.repeat(2_000), delaySeconds: 0 }]);
    before.delete(before.receive(10, 30_000).map((m) => m.receiptHandle));
    expect(logFiles(dir)).toHaveLength(1);
    stop(before);

    const after = openStore(dir, clock, 1_024);
    after.send([{ body: 'z', delaySeconds: 0 }]);
    const [message] = after.receive(10, 30_000);
    // The handle names the queue, the message's row, its number and the receipt's.
    expect(message!.receiptHandle.split('!')[2]).toBe('2');
  });

  it("takes a group's messages out oldest first, across files and a restart, and leaves the rest", async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const before = openStore(dir, clock, 1_024);
    before.send([
      { body: 'a1', delaySeconds: 0, group: 'a' },
      { body: 'b1'.padEnd(1_200, '.'), delaySeconds: 0, group: 'b' },
      { body: 'none', delaySeconds: 0 },
    ]);
    before.send([{ body: 'a2', delaySeconds: 0, group: 'a' }]);
    stop(before);

    const store = openStore(dir, clock, 1_024);
    const placed: string[][] = [];
    expect(store.takeGroup('a', (taken) => placed.push(taken))).toEqual({ taken: 2, held: 0 });
    expect(placed).toEqual([['a1', 'a2']]);
    expect(store.takeGroup('a', (taken) => placed.push(taken))).toEqual({ taken: 0, held: 0 });
    expect(placed).toHaveLength(1);
    stop(store);

    const after = openStore(dir, clock, 1_024);
    expect(bodies(after.receive(10, 30_000)).map((body) => body.slice(0, 4))).toEqual([
      'b1..',
      'none',
    ]);
  });

  it('takes none of a group while one of its messages is in flight, and all once it is deleted', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const store = openStore(dir, clock);
    store.send([
      { body: 'a1', delaySeconds: 0, group: 'a' },
      { body: 'a2', delaySeconds: 0, group: 'a' },
    ]);
    const [inFlight] = store.receive(1, 30_000);
    const placed: string[][] = [];
    expect(store.takeGroup('a', (taken) => placed.push(taken))).toEqual({ taken: 0, held: 1 });
    expect(placed).toEqual([]);
    store.send([{ body: 'a3', delaySeconds: 0, group: 'a' }]);
    store.delete([inFlight!.receiptHandle]);
    expect(store.takeGroup('a', (taken) => placed.push(taken))).toEqual({ taken: 2, held: 0 });
    expect(placed).toEqual([['a2', 'a3']]);
    expect(store.counts()).toEqual({ visible: 0, inFlight: 0, delayed: 0, delayedInLine: 0 });
  });

  it('counts the messages it holds by their group, a decimal number as its own key, after a restart too', async () => {
    const dir = await tempDir();
    const clock = new ManualClock();
    const before = openStore(dir, clock);
    before.send([
      { body: 'a', delaySeconds: 0, group: '-12' },
      { body: 'b', delaySeconds: 0, group: '-12' },
      { body: 'c', delaySeconds: 0, group: '7' },
      { body: 'd', delaySeconds: 0 },
    ]);
    const [first] = before.receive(1, 30_000);
    before.delete([first!.receiptHandle]);
    stop(before);

    const after = openStore(dir, clock);
    expect(after.groupKeys()).toEqual({
      keys: new Map([
        [-12, 1],
        [7, 1],
      ]),
      ungrouped: 1,
    });
  });
});
