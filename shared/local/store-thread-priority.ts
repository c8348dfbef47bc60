import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * The niceness LevelDB's background thread (its table compactions) runs at in a local run:
 * below the event loop's 0, so on a machine whose cores are full (the bridge, its receivers and
 * a connector on two cores) the loop's detection and deliveries run first and compactions take
 * the time left. LevelDB slows its own writes when compactions fall far behind (level-0 files
 * past 8), so they are deferred, not starved. Measured through `change-bridge start`
 * (docs/benchmarks.md, "LevelDB's thread below the event loop"): the emitting backfill of
 * 100,000 customers read and delivered 7-12 % sooner at the same peak memory; the default first
 * sync ~5 % sooner in some runs and the same in others (when the second core has room).
 */
export const STORE_COMPACTION_NICENESS = 10;

/** How often the process's threads are listed until LevelDB's background thread appears. */
export const STORE_THREAD_SCAN_MS = 1_000;

/** The threads of this process, as the operating system lists them. */
export interface ProcessThreads {
  /** Ids of the process's threads now; undefined where they cannot be listed (not Linux). */
  list(): number[] | undefined;
  /** Sets one thread's niceness (Linux: setpriority on a thread id renices that thread only). */
  renice(threadId: number, niceness: number): void;
}

/** Linux's view: the entries of /proc/self/task, and os.setPriority on a thread id. */
export const LINUX_THREADS: ProcessThreads = {
  list: () => {
    if (process.platform !== 'linux') return undefined;
    try {
      return readdirSync('/proc/self/task').map(Number);
    } catch {
      return undefined;
    }
  },
  renice: (threadId, niceness) => setPriority(threadId, niceness),
};

/**
 * What a scan of the threads makes of those not in `before`: none yet (`wait`); exactly one,
 * LevelDB's background thread (`found`); or several at once, which cannot be told apart
 * (`unsure`: the watch gives up rather than lower a thread it cannot name). Pure.
 * @example threadsSince(new Set([1, 2]), [1, 2, 7]) // { kind: 'found', threadId: 7 }
 */
export function threadsSince(
  before: ReadonlySet<number>,
  now: readonly number[],
): { kind: 'wait' } | { kind: 'found'; threadId: number } | { kind: 'unsure' } {
  const fresh = now.filter((threadId) => !before.has(threadId));
  if (fresh.length === 0) return { kind: 'wait' };
  if (fresh.length > 1) return { kind: 'unsure' };
  return { kind: 'found', threadId: fresh[0]! };
}

/** A running watch (see {@link watchStoreCompactionThread}). */
export interface ThreadWatch {
  /** Ends the watch; what it reniced stays so. Idempotent. */
  stop(): void;
}

/**
 * Notes the process's threads now, then lists them every `scanMs` until one more appears, and
 * gives that one {@link STORE_COMPACTION_NICENESS}: call it before the process's first LevelDB
 * store opens, once libuv's pool runs (after an asynchronous file operation). LevelDB starts its
 * one background thread, shared by every database of the process, on the first compaction it
 * schedules (at the open of a store with work left, or once a write buffer fills), and nothing
 * else of a local run starts threads then. Several new threads in one scan, or a list or renice
 * that fails, end the watch with nothing changed. Returns undefined, and watches nothing, where
 * threads cannot be listed. The scan's timer never keeps the process alive.
 * @example const watch = watchStoreCompactionThread(LINUX_THREADS, STORE_THREAD_SCAN_MS);
 */
export function watchStoreCompactionThread(
  threads: ProcessThreads,
  scanMs: number,
): ThreadWatch | undefined {
  const initial = threads.list();
  if (initial === undefined) return undefined;
  const before = new Set(initial);
  const timer = setInterval(() => {
    const now = threads.list();
    const seen = now === undefined ? { kind: 'unsure' as const } : threadsSince(before, now);
    if (seen.kind === 'wait') return;
    clearInterval(timer);
    if (seen.kind !== 'found') return;
    try {
      threads.renice(seen.threadId, STORE_COMPACTION_NICENESS);
    } catch {
      // A thread that ended meanwhile, or a system that refuses: compactions keep the loop's priority.
    }
  }, scanMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Whether this process watches already: LevelDB keeps one background thread per process. */
let watchingThisProcess = false;

/**
 * {@link watchStoreCompactionThread} on this process's own threads (Linux), once per process:
 * later calls do nothing. For the process's own store (`change-bridge start`), before it opens.
 */
export function lowerStoreCompactionPriority(): void {
  if (watchingThisProcess) return;
  watchingThisProcess = true;
  watchStoreCompactionThread(LINUX_THREADS, STORE_THREAD_SCAN_MS);
}
