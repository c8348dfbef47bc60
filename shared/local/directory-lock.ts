import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BridgeError, describeThrown } from '../errors.ts';

const LOCK_FILE = 'LOCK';

/** Directories this process holds the lock of (resolved paths). */
const heldHere = new Set<string>();

/** Whether process `pid` runs (signal 0 checks without signalling). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Which process runs as `pid`, beyond its pid: the boot it runs in and when it started then
 * (`/proc/<pid>/stat`, in clock ticks since boot: no wall clock). A pid used again, after its
 * process stopped or after a reboot, names another process. Undefined where there is no
 * `/proc` (not Linux) or no such process.
 */
function processIdentity(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command's name (which may hold spaces) in parentheses: state is the
    // 3rd field, the start time the 22nd.
    const startTicks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return startTicks === undefined ? undefined : `${boot} ${startTicks}`;
  } catch {
    return undefined;
  }
}

/**
 * Whether the lock file's `content` names a process that runs, other than this one: its pid
 * (first line) runs, and is the process that wrote it (second line, its identity, where both
 * are known; a lock of an earlier version holds only the pid).
 */
function heldByAnother(content: string): number | undefined {
  const [pid = '', identity] = content.split('\n');
  const holder = Number(pid);
  if (!Number.isInteger(holder) || holder <= 0 || holder === process.pid || !isRunning(holder))
    return undefined;
  const written = identity?.trim() || undefined;
  const current = written === undefined ? undefined : processIdentity(holder);
  return current === undefined || current === written ? holder : undefined;
}

/**
 * Takes the lock of directory `dir` for this process: a file `LOCK` in it holding the pid (and
 * on a second line which process that pid is, see {@link processIdentity}), created
 * exclusively with its content. A lock whose process no longer runs (a SIGKILL leaves it
 * behind) is taken over, also where its pid names another process since (after a reboot, say);
 * so is one naming this process's pid that it does not hold (a container restarts with the same
 * pid). Processes taking over one left-behind lock at once end with one holder (see
 * {@link removeStaleLock}). Returns the function that releases it.
 * @throws BridgeError naming the holder when another running process, or this one, holds it:
 * `what` says what the directory is (`the data dir`).
 * @example const release = lockDirectory(dataDir, 'the data dir'); … release();
 */
export function lockDirectory(dir: string, what: string): () => void {
  const path = join(dir, LOCK_FILE);
  const key = resolve(dir);
  if (heldHere.has(key)) throw new BridgeError(`${what} ${dir} is already open in this process`);
  const identity = processIdentity('self');
  const content = identity === undefined ? String(process.pid) : `${process.pid}\n${identity}`;
  const deadline = Date.now() + TAKE_OVER_WAIT_MS;
  for (let attempt = 1; ; attempt++) {
    if (createIn(dir, what, path, content)) {
      heldHere.add(key);
      return () => {
        heldHere.delete(key);
        rmSync(path, { force: true });
      };
    }
    const found = readLock(path);
    if (found === undefined) {
      // Removed since: try again. A name that exists but never reads (a link to nothing) would
      // loop here for ever.
      if (attempt < MAX_ATTEMPTS_UNREAD) continue;
      throw new BridgeError(
        `${what} ${dir}: its lock ${path} exists but cannot be read (a broken link?); delete it`,
      );
    }
    const holder = heldByAnother(found);
    if (holder !== undefined)
      throw new BridgeError(
        `${what} ${dir} is in use by process ${holder} (one change-bridge opens it at a time; if that process is not one, delete ${path})`,
      );
    if (Date.now() > deadline)
      throw new BridgeError(
        `${what} ${dir}: the lock ${path} left by a process that no longer runs could not be taken over (delete it)`,
      );
    removeStaleLock(path, content);
  }
}

/**
 * {@link createWith} for the lock of `dir`: a failure other than an existing lock (a full disk,
 * a read-only one) names the directory, which the system's message (`ENOSPC: no space left on
 * device, write`) does not.
 */
function createIn(dir: string, what: string, path: string, content: string): boolean {
  try {
    return createWith(path, content);
  } catch (error) {
    throw new BridgeError(`${what} ${dir} cannot be locked: ${describeThrown(error)}`, {
      cause: error,
    });
  }
}

/** Attempts of {@link lockDirectory} that find a lock it then cannot read before it gives up. */
const MAX_ATTEMPTS_UNREAD = 100;

/** How long {@link lockDirectory} goes on taking over a left-behind lock before it gives up. */
const TAKE_OVER_WAIT_MS = 5_000;

/**
 * Creates the file at `path` holding `content` unless one exists there (false then). The file
 * appears with its content (a link to a file written first), never empty: an empty lock would
 * read as one left behind.
 */
function createWith(path: string, content: string): boolean {
  const draft = `${path}.${process.pid}.draft`;
  try {
    writeFileSync(draft, content);
    linkSync(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(draft, { force: true });
  }
}

/** The file's content, or undefined when there is none. */
function readLock(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Removes the lock at `path` if its process no longer runs, as the holder of a second lock,
 * `LOCK.takeover`, taken the same way: a lock judged left behind and deleted by two processes
 * at once could delete the one the first of them made in between (it read the same left-behind
 * content before), and both would hold the directory. With the guard only one process deletes,
 * and only what it read as left behind while it held the guard. A guard whose process no
 * longer runs (killed while taking over) is removed; one held by a running process is waited
 * for (its holder removes it within microseconds). The one gap left: two processes removing
 * such a left-behind guard at once may both take it, after a process was killed in the
 * microseconds it held one.
 */
function removeStaleLock(path: string, content: string): void {
  const guard = `${path}.takeover`;
  if (!createWith(guard, content)) {
    const found = readLock(guard);
    if (found !== undefined && heldByAnother(found) === undefined) rmSync(guard, { force: true });
    else sleepSync(2);
    return;
  }
  try {
    const found = readLock(path);
    if (found !== undefined && heldByAnother(found) === undefined) rmSync(path, { force: true });
  } finally {
    rmSync(guard, { force: true });
  }
}

/** Blocks the thread for `ms` (lockDirectory is synchronous). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
