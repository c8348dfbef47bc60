import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  LINUX_THREADS,
  type ProcessThreads,
  STORE_COMPACTION_NICENESS,
  threadsSince,
  watchStoreCompactionThread,
} from '../../shared/local/store-thread-priority.ts';

const MODULE_URL = new URL('../../shared/local/store-thread-priority.ts', import.meta.url).href;
const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Threads listed from `lists` in turn (the last one repeated), renices noted. */
function fakeThreads(lists: (number[] | undefined)[]): ProcessThreads & {
  reniced: [number, number][];
} {
  let call = 0;
  const reniced: [number, number][] = [];
  return {
    reniced,
    list: () => lists[Math.min(call++, lists.length - 1)],
    renice: (threadId, niceness) => {
      reniced.push([threadId, niceness]);
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('threadsSince', () => {
  it('waits while no thread is new, names the one new thread, and is unsure of several', () => {
    const before = new Set([1, 2, 3]);
    expect(threadsSince(before, [1, 2, 3])).toEqual({ kind: 'wait' });
    expect(threadsSince(before, [1, 3])).toEqual({ kind: 'wait' });
    expect(threadsSince(before, [1, 2, 3, 9])).toEqual({ kind: 'found', threadId: 9 });
    expect(threadsSince(before, [1, 2, 3, 9, 10])).toEqual({ kind: 'unsure' });
  });
});

describe('watchStoreCompactionThread', () => {
  it('renices the one thread that appears after it began, then scans no more', () => {
    vi.useFakeTimers();
    const threads = fakeThreads([
      [1, 2],
      [1, 2],
      [1, 2, 7],
      [1, 2, 7, 8],
    ]);
    expect(watchStoreCompactionThread(threads, 100)).toBeDefined();
    vi.advanceTimersByTime(100);
    expect(threads.reniced).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(threads.reniced).toEqual([[7, STORE_COMPACTION_NICENESS]]);
    vi.advanceTimersByTime(1_000);
    expect(threads.reniced).toEqual([[7, STORE_COMPACTION_NICENESS]]);
    expect(STORE_COMPACTION_NICENESS).toBeGreaterThan(0);
  });

  it('lowers no thread when several appear in one scan, or the list fails', () => {
    vi.useFakeTimers();
    const several = fakeThreads([[1], [1, 5, 6], [1, 5, 6, 7]]);
    watchStoreCompactionThread(several, 100);
    const failing = fakeThreads([[1], undefined, [1, 5]]);
    watchStoreCompactionThread(failing, 100);
    vi.advanceTimersByTime(1_000);
    expect(several.reniced).toEqual([]);
    expect(failing.reniced).toEqual([]);
  });

  it('watches nothing where threads cannot be listed, and stops when asked', () => {
    vi.useFakeTimers();
    expect(watchStoreCompactionThread(fakeThreads([undefined]), 100)).toBeUndefined();
    const threads = fakeThreads([[1], [1], [1, 4]]);
    watchStoreCompactionThread(threads, 100)?.stop();
    vi.advanceTimersByTime(1_000);
    expect(threads.reniced).toEqual([]);
  });

  it('survives a renice that fails (the thread ended meanwhile)', () => {
    vi.useFakeTimers();
    const threads: ProcessThreads = {
      list: fakeThreads([[1], [1, 3]]).list,
      renice: () => {
        throw new Error('ESRCH');
      },
    };
    watchStoreCompactionThread(threads, 100);
    expect(() => vi.advanceTimersByTime(500)).not.toThrow();
  });

  // A fresh process: LevelDB starts one background thread per process, so one already running
  // in this test worker (other files opened stores) would never show up as new.
  it.skipIf(LINUX_THREADS.list() === undefined)(
    "gives LevelDB's compaction thread, and no other, the lower priority in a real process",
    async () => {
      const script = `
        import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
        import { tmpdir } from 'node:os';
        import { join } from 'node:path';
        import { ClassicLevel } from 'classic-level';
        const { LINUX_THREADS, watchStoreCompactionThread } = await import(${JSON.stringify(MODULE_URL)});
        const dir = await mkdtemp(join(tmpdir(), 'bridge-thread-priority-'));
        const niceness = async (id) =>
          Number((await readFile('/proc/self/task/' + id + '/stat', 'utf8')).split(') ')[1].split(' ')[16]);
        const before = (await readdir('/proc/self/task')).map(Number);
        watchStoreCompactionThread(LINUX_THREADS, 10);
        // A 64 KB write buffer: a few hundred KB written fill it several times over.
        const db = new ClassicLevel(join(dir, 'db'), { writeBufferSize: 64 * 1024 });
        await db.open();
        const value = 'x'.repeat(1_000);
        for (let batch = 0; batch < 40; batch++)
          await db.batch(Array.from({ length: 25 }, (_, i) => ({ type: 'put', key: batch + ':' + Math.random() + ':' + i, value })));
        let lowered = [];
        for (let tries = 0; tries < 200 && lowered.length === 0; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
          const ids = (await readdir('/proc/self/task')).map(Number);
          lowered = [];
          for (const id of ids) if ((await niceness(id)) !== 0) lowered.push(id);
        }
        const after = (await readdir('/proc/self/task')).map(Number);
        await db.close();
        await rm(dir, { recursive: true, force: true });
        console.log(JSON.stringify({ before, after, lowered, lowest: lowered.length ? await niceness(lowered[0]).catch(() => null) : null, main: await niceness(process.pid) }));
      `;
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: REPO, timeout: 20_000 },
      );
      const seen = JSON.parse(stdout) as {
        before: number[];
        after: number[];
        lowered: number[];
        lowest: number | null;
        main: number;
      };
      const started = seen.after.filter((id) => !seen.before.includes(id));
      // LevelDB started exactly one thread, and that one runs lower; the main thread does not.
      expect(started).toHaveLength(1);
      expect(seen.lowered).toEqual(started);
      expect(seen.lowest).toBe(STORE_COMPACTION_NICENESS);
      expect(seen.main).toBe(0);
    },
  );
});
