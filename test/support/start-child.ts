import { type ChildProcess, spawn } from 'node:child_process';
import { BIN_PATH } from './run-bin.ts';

/** How a `change-bridge start` child ended: its code or signal, and when (ms since its spawn). */
export interface StartChildEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

/** A `change-bridge start --json` child process, see {@link spawnStartJson}. */
export interface StartChild {
  child: ChildProcess;
  ended: Promise<StartChildEnd>;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Whether it printed its `started` line. */
  started(): boolean;
  /** Milliseconds from the spawn to the `started` line, once printed. */
  startedAt(): number | undefined;
  /** Milliseconds since the spawn. */
  elapsed(): number;
}

/**
 * `change-bridge start --json` as a child process on a free port with `dataDir`, polling the
 * built-in simulator's customers alone once an hour (its first sync, a baseline, emits nothing),
 * SIGKILLed should it outlive `killAfterMs`.
 */
export function spawnStartJson(dataDir: string, killAfterMs = 60_000): StartChild {
  const spawnedAt = performance.now();
  const elapsed = () => performance.now() - spawnedAt;
  const child = spawn(
    process.execPath,
    [BIN_PATH, 'start', '--json', '--port', '0', '--data-dir', dataDir, '--poll-interval', '1h'],
    { env: { ...process.env, POLL_ENTITIES: 'customer' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  let startedAt: number | undefined;
  child.stdout.on('data', (chunk) => {
    output += chunk;
    if (startedAt === undefined && output.includes('"message":"started"')) startedAt = elapsed();
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  const ended = new Promise<StartChildEnd>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, at: elapsed() });
    }),
  );
  return {
    child,
    ended,
    output: () => output,
    started: () => startedAt !== undefined,
    startedAt: () => startedAt,
    elapsed,
  };
}
