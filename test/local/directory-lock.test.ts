import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDirectory } from '../../shared/local/directory-lock.ts';

const LOCK_MODULE = fileURLToPath(new URL('../../shared/local/directory-lock.ts', import.meta.url));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dir-lock-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A process that runs until the test ends (kill it sooner to leave what it holds behind). */
function runningProcess(script = 'setInterval(() => {}, 60_000)') {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(() => {
    child.kill('SIGKILL');
  });
  return child;
}

describe('lockDirectory', () => {
  it.runIf(process.platform === 'linux')(
    'takes over the lock of a killed process whose pid another process runs as since',
    async () => {
      const dir = await tempDir();
      const holder = runningProcess(
        `import { lockDirectory } from ${JSON.stringify(LOCK_MODULE)};
         lockDirectory(${JSON.stringify(dir)}, 'the data dir');
         console.log('locked');
         setInterval(() => {}, 60_000);`,
      );
      await new Promise((resolve) => holder.stdout!.once('data', resolve));
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('exit', resolve));

      // The holder's pid is used again (after a reboot, say): by a process that never locked.
      const other = runningProcess();
      const lines = readFileSync(join(dir, 'LOCK'), 'utf8').split('\n');
      writeFileSync(join(dir, 'LOCK'), [String(other.pid), ...lines.slice(1)].join('\n'));

      const release = lockDirectory(dir, 'the data dir');
      cleanups.push(release);
      expect(readFileSync(join(dir, 'LOCK'), 'utf8').split('\n')[0]).toBe(String(process.pid));
    },
  );

  it('refuses a lock its running holder wrote, and names it', async () => {
    const dir = await tempDir();
    const holder = runningProcess(
      `import { lockDirectory } from ${JSON.stringify(LOCK_MODULE)};
       lockDirectory(${JSON.stringify(dir)}, 'the data dir');
       console.log('locked');
       setInterval(() => {}, 60_000);`,
    );
    await new Promise((resolve) => holder.stdout!.once('data', resolve));

    expect(() => lockDirectory(dir, 'the data dir')).toThrow(
      `the data dir ${dir} is in use by process ${holder.pid}`,
    );
  });
});
