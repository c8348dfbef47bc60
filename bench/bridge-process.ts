import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/change-bridge.js', import.meta.url));

/** `change-bridge start` as users run it: a child process on its own port and data dir. */
export interface BridgeChild {
  api: string;
  process: ChildProcess;
  /** Sends a JSON request to the admin API and returns the parsed answer. */
  call(method: string, path: string, body?: unknown): Promise<unknown>;
  /** Resolves once every stream has finished a poll (the first sync is done). */
  caughtUp(timeoutMs: number): Promise<void>;
  /** SIGTERM, then removes the data dir. */
  stop(): Promise<void>;
}

/**
 * `--cpu-prof` for the child when BENCH_CHILD_CPU_PROF names a folder (Node refuses the flag
 * in NODE_OPTIONS), so a bench can show where the bridge's time goes.
 */
function childProfileArgs(): string[] {
  const dir = process.env.BENCH_CHILD_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

/** `start` on `port` with its data under `dataDir`, polling every second. */
const startArgs = (port: number, dir: string) => [
  'start',
  '--port',
  String(port),
  '--data-dir',
  dir,
  '--poll-interval',
  '1s',
];

/** Starts the bridge with `env` added to ours and `--poll-interval 1s`. */
export async function startBridgeChild(env: Record<string, string>): Promise<BridgeChild> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-bridge-'));
  const port = 41_000 + Math.floor(Math.random() * 8_000);
  const child = spawn(process.execPath, [...childProfileArgs(), BIN, ...startArgs(port, dataDir)], {
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  const api = `http://127.0.0.1:${port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${api}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status}`);
    return response.status === 204 ? undefined : response.json();
  };
  return {
    api,
    process: child,
    call,
    async caughtUp(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const listing = (await call('GET', '/streams').catch(() => undefined)) as
          | { streams: { lastSuccessAt: string | null }[] }
          | undefined;
        if (listing?.streams.length && listing.streams.every((s) => s.lastSuccessAt)) return;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      throw new Error('the bridge did not finish its first sync in time');
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
