import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BridgeError } from '../errors.ts';

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
 * Takes the lock of directory `dir` for this process: a file `LOCK` in it holding the pid,
 * created exclusively. A lock whose process no longer runs (a SIGKILL leaves it behind) is
 * taken over; so is one naming this process's pid that it does not hold (a container restarts
 * with the same pid). Returns the function that releases it.
 * @throws BridgeError naming the holder when another running process, or this one, holds it:
 * `what` says what the directory is (`the data dir`).
 * @example const release = lockDirectory(dataDir, 'the data dir'); … release();
 */
export function lockDirectory(dir: string, what: string): () => void {
  const path = join(dir, LOCK_FILE);
  const key = resolve(dir);
  if (heldHere.has(key)) throw new BridgeError(`${what} ${dir} is already open in this process`);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldHere.add(key);
      return () => {
        heldHere.delete(key);
        rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
    }
    const holder = Number(readFileSync(path, 'utf8'));
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isRunning(holder))
      throw new BridgeError(
        `${what} ${dir} is in use by process ${holder} (one change-bridge opens it at a time; if that process is not one, delete ${path})`,
      );
    rmSync(path, { force: true });
  }
}
