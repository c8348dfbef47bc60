import { spawn } from 'node:child_process';
import fs, {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
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

/** Where {@link lockModuleBundle} wrote the lock module as plain JavaScript. */
let bundleDir: string | undefined;
afterAll(async () => {
  if (bundleDir) await rm(bundleDir, { recursive: true, force: true });
});

/**
 * The URL of the lock module (its sources, bundled by esbuild) as plain JavaScript, built once
 * for the file: a child process imports it without tsx's loader (about a second of start-up).
 */
function lockModuleBundle(): string {
  bundleDir ??= mkdtempSync(join(tmpdir(), 'dir-lock-bundle-'));
  const bundle = join(bundleDir, 'directory-lock.mjs');
  if (!existsSync(bundle))
    buildSync({
      entryPoints: [LOCK_MODULE],
      bundle: true,
      format: 'esm',
      platform: 'node',
      outfile: bundle,
      logLevel: 'silent',
    });
  return pathToFileURL(bundle).href;
}

/** A process that runs until the test ends (kill it sooner to leave what it holds behind). */
function runningProcess(script = 'setInterval(() => {}, 60_000)') {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
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
        `import { lockDirectory } from ${JSON.stringify(lockModuleBundle())};
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
      `import { lockDirectory } from ${JSON.stringify(lockModuleBundle())};
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

describe('lockDirectory taken over by several processes at once', () => {
  it('gives the lock a killed process left behind to one of them alone', async () => {
    const work = await tempDir();
    // The lock module as plain JavaScript: each contender starts in milliseconds, not a second.
    const bundle = lockModuleBundle();
    const rounds = 30;
    const contenders = 5;
    const dirs: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const dir = join(work, `data-${round}`);
      mkdirSync(dir);
      // Left by a process that no longer runs (a SIGKILL).
      writeFileSync(join(dir, 'LOCK'), '999999\nboot 1');
      dirs.push(dir);
    }
    const firstAt = Date.now() + 1_500;
    const roundMs = 60;
    // Each contender takes on every data dir at the same moment as the others (a spin until
    // it), and holds what it took until all rounds are over.
    const script = `import { lockDirectory } from ${JSON.stringify(bundle)};
      const dirs = ${JSON.stringify(dirs)};
      const results = [];
      for (let round = 0; round < dirs.length; round++) {
        const at = ${firstAt} + round * ${roundMs};
        while (Date.now() < at - 5) await new Promise((resolve) => setTimeout(resolve, 1));
        while (Date.now() < at) {}
        try { lockDirectory(dirs[round], 'the data dir'); results.push(1); } catch { results.push(0); }
      }
      console.log(JSON.stringify(results));
      setTimeout(() => {}, ${roundMs * 2});`;
    const runs = await Promise.all(
      Array.from(
        { length: contenders },
        () =>
          new Promise<number[]>((resolve, reject) => {
            const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
              stdio: ['ignore', 'pipe', 'inherit'],
            });
            cleanups.push(() => {
              child.kill('SIGKILL');
            });
            let output = '';
            child.stdout!.on('data', (chunk) => {
              output += chunk;
            });
            child.once('error', reject);
            child.once('exit', () => resolve(JSON.parse(output) as number[]));
          }),
      ),
    );
    const holders = dirs.map((_, round) => runs.reduce((sum, run) => sum + run[round]!, 0));
    expect(holders).toEqual(dirs.map(() => 1));
  });
});

describe('lockDirectory on a full disk', () => {
  it('fails naming the directory and leaves no file of its own behind', async () => {
    const dir = await tempDir();
    const writeFile = fs.writeFileSync;
    // The disk is full: the file is created, its content is refused.
    const spy = vi.spyOn(fs, 'writeFileSync').mockImplementation((file) => {
      writeFile(file, '');
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
      });
    });
    syncBuiltinESMExports();
    try {
      expect(() => lockDirectory(dir, 'the data dir')).toThrow(
        `the data dir ${dir} cannot be locked: ENOSPC: no space left on device, write`,
      );
    } finally {
      spy.mockRestore();
      syncBuiltinESMExports();
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('lockDirectory on a lock that exists but cannot be read', () => {
  it('fails naming it instead of trying for ever (a link to nothing)', async () => {
    const dir = await tempDir();
    symlinkSync(join(dir, 'nowhere'), join(dir, 'LOCK'));
    // In a process of its own: a lock that loops for ever would block this one.
    const child = runningProcess(
      `import { lockDirectory } from ${JSON.stringify(lockModuleBundle())};
       try { lockDirectory(${JSON.stringify(dir)}, 'the data dir'); console.log('locked'); }
       catch (error) { console.log(error.message); }
       process.exit(0);`,
    );
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
    });
    const exited = await Promise.race([
      new Promise((resolve) => child.once('exit', () => resolve(true))),
      new Promise((resolve) => setTimeout(() => resolve(false), 15_000)),
    ]);
    expect(exited).toBe(true);
    expect(output).toContain(
      `the data dir ${dir}: its lock ${join(dir, 'LOCK')} exists but cannot be read`,
    );
  }, 30_000);
});
