import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeError } from '../../errors.ts';

const LOCK_FILE = 'LOCK';

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
 * Takes the lock of the queue directory `dir` for this process: a file `LOCK` holding its pid,
 * created exclusively. A lock whose process no longer runs (stopped by a SIGKILL) is taken
 * over. Returns the function that releases it.
 * @throws BridgeError when a running process holds it: two processes appending to one log
 * would interleave their records.
 * @example const release = lockQueueDir(dir); … release();
 */
export function lockQueueDir(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
    }
    const holder = Number(readFileSync(path, 'utf8'));
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isRunning(holder))
      throw new BridgeError(
        `the queue at ${dir} is in use by process ${holder} (one process opens a data dir at a time; delete ${path} if that process is not a change-bridge)`,
      );
    rmSync(path, { force: true });
  }
}
