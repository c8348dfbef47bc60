import { execFileSync, spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { type FileHandle, mkdtemp, open, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SEED_ANCHOR_FILE_NAME } from '../../shared/simulator/seed-anchor.ts';
import { BIN_PATH } from '../support/run-bin.ts';

/** Preload whose module hooks hold the CLI's load at the pipe HOLD_CLI_LOAD_FIFO names. */
const HOLD_CLI_LOAD_PRELOAD = new URL('../support/hold-cli-load.mjs', import.meta.url).href;

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A named pipe at `path`: whoever opens it waits for the other end, which holds a start there. */
function makeFifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

/**
 * `change-bridge ARGS` as a child process (`nodeArgs` before the bin, such as `--import`);
 * resolves to how it ended and what it printed.
 */
function spawnBin(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []) {
  const child = spawn(process.execPath, [...nodeArgs, BIN_PATH, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return {
    child,
    output: () => output,
    ended: ended.finally(() => clearTimeout(timer)),
  };
}

/**
 * Opens the pipe at `path` (`'w'` or `'r'`) once the command opens its other end. A command
 * that ends first releases the open (the other end opened without waiting) and fails the test
 * with what it printed, so no open waits for ever in the test process.
 */
async function openWhenTheCommandDoes(
  path: string,
  flags: 'w' | 'r',
  run: ReturnType<typeof spawnBin>,
): Promise<FileHandle> {
  const opening = open(path, flags);
  const first = await Promise.race([
    opening.then((handle) => ({ handle })),
    run.ended.then((ended) => ({ ended })),
  ]);
  if ('handle' in first) return first.handle;
  const otherEnd = flags === 'w' ? constants.O_RDONLY : constants.O_WRONLY;
  const release = await open(path, otherEnd | constants.O_NONBLOCK);
  await (await opening).close();
  await release.close();
  throw new Error(
    `the command ended (${JSON.stringify(first.ended)}) before it opened ${path}: ${run.output()}`,
  );
}

// Concurrent: each test has its own process, pipe and directory, and each mostly waits for its
// process to start (a node and the CLI's load).
const describePosix = describe.skipIf(process.platform === 'win32').concurrent;

/**
 * `change-bridge ARGS` sent SIGTERM while the CLI's module still loads: the preload's hooks hold
 * that load at a pipe `cli-load` in `dir` (before any command runs), released once the signal is
 * sent. Resolves to the run and how it ended.
 */
async function sigtermWhileTheCliLoads(args: string[], dir: string) {
  const fifo = join(dir, 'cli-load');
  makeFifo(fifo);
  const run = spawnBin(args, { HOLD_CLI_LOAD_FIFO: fifo }, ['--import', HOLD_CLI_LOAD_PRELOAD]);
  const writer = await openWhenTheCommandDoes(fifo, 'w', run);
  run.child.kill('SIGTERM');
  // Closing the pipe lets the load go on; a process the signal ended has closed its end.
  await writer.close().catch(() => {});
  return { run, ended: await run.ended };
}

describePosix('a stop signal while a command starts', () => {
  it('stops simulator cleanly, exit 0, when SIGTERM arrives while the CLI still loads', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'simulator-load-signal-'));
    dirs.push(dir);
    const { run, ended } = await sigtermWhileTheCliLoads(
      ['simulator', '--port', '0', '--activity', '0'],
      dir,
    );
    expect({ ...ended, output: run.output() }).toMatchObject({ code: 0, signal: null });
    expect(run.output()).toContain('simulator stopped');
  }, 90_000);

  it('ends start at its first step, exit 0, when SIGTERM arrives while the CLI still loads', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'start-load-signal-'));
    dirs.push(dataDir);
    const { run, ended } = await sigtermWhileTheCliLoads(
      ['start', '--port', '0', '--data-dir', dataDir],
      dataDir,
    );
    expect({ ...ended, output: run.output() }).toMatchObject({ code: 0, signal: null });
    expect(run.output()).toContain('SIGTERM: stopping');
    expect(run.output()).toContain('stopped');
    // Nothing was opened only to be closed again: no store, queue or lock in the data dir.
    expect(await readdir(dataDir)).toEqual(['cli-load']);
  }, 90_000);

  it('stops start cleanly, exit 0, when SIGTERM arrives before it has started', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'start-signal-'));
    dirs.push(dataDir);
    // The built-in simulator reads its seed anchor early in the start: a pipe holds it there.
    const anchor = join(dataDir, SEED_ANCHOR_FILE_NAME);
    makeFifo(anchor);
    const run = spawnBin(['start', '--port', '0', '--data-dir', dataDir]);
    const writer = await openWhenTheCommandDoes(anchor, 'w', run);
    run.child.kill('SIGTERM');
    await writer.write(`${JSON.stringify({ seededAtMs: Date.now() })}\n`);
    await writer.close();
    const ended = await run.ended;
    expect({ ...ended, output: run.output() }).toMatchObject({ code: 0, signal: null });
    expect(run.output()).toContain('SIGTERM: stopping');
    expect(run.output()).toContain('stopped');
  }, 90_000);

  it('stops simulator cleanly, exit 0, when SIGINT arrives before it has started', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'simulator-signal-'));
    dirs.push(dir);
    // The tokens file is written before the simulator says it listens: a pipe holds it there.
    const tokensFile = join(dir, 'tokens.json');
    makeFifo(tokensFile);
    const run = spawnBin([
      'simulator',
      '--port',
      '0',
      '--activity',
      '0',
      '--tokens-file',
      tokensFile,
    ]);
    const reader = await openWhenTheCommandDoes(tokensFile, 'r', run);
    run.child.kill('SIGINT');
    const tokens = await readFile(reader, 'utf8');
    await reader.close();
    expect(JSON.parse(tokens)).toMatchObject({ clientToken: 'sim-client-token' });
    const ended = await run.ended;
    expect({ ...ended, output: run.output() }).toMatchObject({ code: 0, signal: null });
    expect(run.output()).toContain('simulator stopped');
  }, 90_000);
});
