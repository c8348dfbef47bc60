import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { z } from 'zod';
import { processCpuSeconds } from './machine-cpu.ts';

const BIN = fileURLToPath(new URL('../bin/change-bridge.js', import.meta.url));
const GROUP_RSS_SAMPLE_MS = 200;
const KIB = 1024;
const runFile = promisify(execFile);

/** The `started` line of `change-bridge start --json` (the admin URL, with the port it bound). */
const StartedLineSchema = z.object({ message: z.literal('started'), admin: z.url() });
const LogLineSchema = z.object({ message: z.string() });
/**
 * The start of the bridge's line for one published event (`jsonReporter`: time, level, message
 * first): such lines are counted without being parsed.
 */
const EVENT_LINE = /^\{"time":"[^"]*","level":"info","message":"event",/;

/** `change-bridge start` as users run it: a child process group of its own, on its own data dir. */
export interface BridgeChild {
  api: string;
  process: ChildProcess;
  /** Sends a JSON request to the admin API and returns the parsed answer. */
  call(method: string, path: string, body?: unknown): Promise<unknown>;
  /** Resolves once every stream has finished a poll (the first sync is done). */
  caughtUp(timeoutMs: number): Promise<void>;
  /** Events the bridge reported as published (its `event` lines). */
  published(): number;
  /** Highest RSS in bytes summed over the child's process group, sampled every 200 ms. */
  peakGroupRss(): number;
  /** SIGTERM, waits for a clean exit; removes the data dir unless it was given. */
  stop(): Promise<void>;
}

/** Options of {@link startBridgeChild}. */
export interface BridgeChildOptions {
  /** Added to this process's environment. */
  env: Record<string, string>;
  /** Data dir to use and keep (a restart); a fresh temporary one, removed on stop, when absent. */
  dataDir?: string;
  /** `--poll-interval` (default 1s). */
  pollInterval?: string;
}

/**
 * `BENCH_BRIDGE_NODE_ARGS`: node flags for the bridge child alone, space-separated, to profile it
 * (`--cpu-prof --cpu-prof-dir=/tmp/prof`, `--heapsnapshot-signal=SIGUSR2`) without profiling the
 * benchmark and the simulator beside it (Node 20 refuses `--cpu-prof` in NODE_OPTIONS).
 */
function bridgeNodeArgs(): string[] {
  return (process.env.BENCH_BRIDGE_NODE_ARGS ?? '').split(' ').filter(Boolean);
}

/**
 * Sum of the RSS of every process in group `pgid`, in bytes (`ps` reports KiB); 0 once the
 * group is gone.
 */
export async function groupRssBytes(pgid: number): Promise<number> {
  try {
    const { stdout } = await runFile('ps', ['-o', 'rss=', '-g', String(pgid)]);
    return stdout
      .split('\n')
      .map((line) => Number(line.trim()) * KIB)
      .filter((bytes) => Number.isFinite(bytes))
      .reduce((sum, bytes) => sum + bytes, 0);
  } catch {
    return 0;
  }
}

/**
 * CPU seconds (user + system) spent so far by every live process of group `pgid`, from
 * /proc/<pid>/stat (fields 14 and 15, after the command name's closing parenthesis); 0 once
 * the group is gone. Sample it before and after a period to get that period's CPU.
 */
export async function groupCpuSeconds(pgid: number): Promise<number> {
  let pids: number[];
  try {
    const { stdout } = await runFile('ps', ['-o', 'pid=', '-g', String(pgid)]);
    pids = stdout
      .split('\n')
      .map(Number)
      .filter((pid) => Number.isInteger(pid) && pid > 0);
  } catch {
    return 0;
  }
  let seconds = 0;
  for (const pid of pids) seconds += await processCpuSeconds(pid);
  return seconds;
}

/**
 * Samples the RSS of process group `pgid` every `intervalMs` until stopped.
 * @example const rss = sampleGroupPeakRss(child.pid!, 200); …; rss.stop(); rss.peak();
 */
export function sampleGroupPeakRss(
  pgid: number,
  intervalMs: number,
): { peak(): number; stop(): void } {
  let peak = 0;
  const timer = setInterval(() => {
    void groupRssBytes(pgid).then((rss) => {
      peak = Math.max(peak, rss);
    });
  }, intervalMs);
  return { peak: () => peak, stop: () => clearInterval(timer) };
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** Bridges started and not yet exited: they have process groups of their own, so nothing ends them with ours. */
const runningBridges = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Sends SIGTERM to the group of every bridge still running when this process exits, and makes
 * SIGINT and SIGTERM exit this process (so that happens on Ctrl-C or a `timeout` too). Once.
 */
function stopBridgesOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const bridge of runningBridges) {
      try {
        process.kill(-bridge.pid!, 'SIGTERM');
      } catch {
        // Gone already.
      }
    }
  });
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)
    if (process.listenerCount(signal) === 0) process.once(signal, () => process.exit(code));
}

/**
 * Spawns `node bin/change-bridge.js start --json --port 0` detached (its own process group, so
 * its memory is summed over the group), samples the group's RSS from the start, counts its
 * `event` lines, and resolves once it has printed its admin URL.
 * @example const bridge = await startBridgeChild({ env: { POLL_ENTITIES: 'customer' } }); await bridge.stop();
 */
export async function startBridgeChild(options: BridgeChildOptions): Promise<BridgeChild> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'bench-bridge-')));
  const args = ['start', '--json', '--port', '0', '--data-dir', dataDir];
  const child = spawn(
    process.execPath,
    [...bridgeNodeArgs(), BIN, ...args, '--poll-interval', options.pollInterval ?? '1s'],
    {
      env: {
        ...process.env,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    },
  );
  stopBridgesOnExit();
  runningBridges.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      runningBridges.delete(child);
      resolve();
    }),
  );
  let published = 0;
  let onStarted: ((url: string) => void) | undefined;
  const started = new Promise<string>((resolve, reject) => {
    onStarted = resolve;
    void exited.then(() => reject(new Error('change-bridge start exited before it was ready')));
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (EVENT_LINE.test(line)) {
      published++;
      return;
    }
    const parsed = parseLine(line);
    const message = LogLineSchema.safeParse(parsed);
    // Not a log line (node's own output, e.g. --trace-gc): passed on for diagnosis.
    if (!message.success) return void process.stderr.write(`${line}\n`);
    if (message.data.message === 'event') published++;
    const startedLine = StartedLineSchema.safeParse(parsed);
    if (startedLine.success) onStarted?.(startedLine.data.admin);
  });
  const rss = sampleGroupPeakRss(child.pid!, GROUP_RSS_SAMPLE_MS);
  const stop = async () => {
    rss.stop();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
  };
  let api: string;
  try {
    api = await started;
  } catch (error) {
    await stop();
    throw error;
  }
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
    published: () => published,
    peakGroupRss: () => rss.peak(),
    stop,
  };
}
