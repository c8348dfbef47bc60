import { spawn } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runBin, unprivilegedUser } from '../support/run-bin.ts';

const CLASSIC_LEVEL = createRequire(import.meta.url).resolve('classic-level');
/**
 * Who the bridge runs as where a folder's mode must refuse it: as root (CI), `nobody`, since
 * root writes through any mode; otherwise this process's user.
 */
const user = unprivilegedUser();

/** Gives `paths` to the user the bridge runs as (root's own otherwise, left as they are). */
async function ownedByBridge(...paths: string[]): Promise<void> {
  if (user) for (const path of paths) await chown(path, user.uid, user.gid);
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bridge-store-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** What a start that cannot use its data dir must print: a line of its own, no stack trace. */
function expectClearFailure(result: { code: number | null; stderr: string }, says: RegExp) {
  expect(result.stderr).toMatch(says);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stderr).not.toContain('Node.js v');
}

describe('change-bridge start on a data dir whose store it cannot open', () => {
  it('exits 1 naming the store when another process holds its LevelDB, and leaves no lock behind', async () => {
    const dataDir = await tempDir();
    const store = join(dataDir, 'dynamodb');
    // Another process has the store open (a bridge of another data dir layout, a tool).
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const { ClassicLevel } = require(${JSON.stringify(CLASSIC_LEVEL)});
         new ClassicLevel(${JSON.stringify(store)}).open().then(() => console.log('open'));
         setInterval(() => {}, 60_000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    cleanups.push(() => {
      holder.kill('SIGKILL');
    });
    await new Promise((resolve) => holder.stdout!.once('data', resolve));

    const result = await runBin(['start', '--port', '0', '--data-dir', dataDir], {}, 60_000);
    expect(result.code).toBe(1);
    expectClearFailure(result, /the local store .*dynamodb cannot be opened: .*lock/i);
    expect(await readdir(dataDir)).not.toContain('LOCK');
  }, 90_000);

  it('exits 1 naming the store when its folder is read-only', async () => {
    const dataDir = await tempDir();
    const store = join(dataDir, 'dynamodb');
    await mkdir(store);
    await chmod(store, 0o500);
    await ownedByBridge(dataDir, store);
    cleanups.push(() => chmod(store, 0o700));
    const result = await runBin(['start', '--port', '0', '--data-dir', dataDir], {}, 60_000, user);
    expect(result.code).toBe(1);
    expectClearFailure(result, /the local store .*dynamodb cannot be opened: .*permission denied/i);
  }, 90_000);

  it('exits 2 naming --data-dir when the data dir is read-only', async () => {
    const dataDir = await tempDir();
    await chmod(dataDir, 0o500);
    await ownedByBridge(dataDir);
    cleanups.push(() => chmod(dataDir, 0o700));
    const result = await runBin(['start', '--port', '0', '--data-dir', dataDir], {}, 60_000, user);
    expect(result.code).toBe(2);
    expectClearFailure(
      result,
      /--data-dir \(BRIDGE_DATA_DIR\): .* cannot be created or written \(permission denied\)/,
    );
    expect(await readdir(dataDir)).toEqual([]);
  }, 90_000);
});
