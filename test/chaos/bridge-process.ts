import { type ChildProcess, spawn } from 'node:child_process';
import { OutputTail } from '../support/output-tail.ts';
import { BIN_PATH } from '../support/run-bin.ts';

/** `change-bridge start` as a child process that can be killed and started again on its data dir. */
export interface BridgeProcess {
  readonly api: string;
  /** Starts the bridge, polling at `pollInterval` if given (else the options' interval). */
  start(pollInterval?: string): void;
  /** SIGKILL of the whole process group: no handler runs, nothing is flushed. */
  kill(): Promise<void>;
  /** SIGTERM, resolving with the exit code. */
  stop(): Promise<number | null>;
  /** The last lines the bridge printed, for a failure message. */
  tail(): string;
}

/** Options of {@link bridgeProcess}. */
export interface BridgeProcessOptions {
  port: number;
  dataDir: string;
  pollInterval: string;
  env: Record<string, string>;
}

/** Wraps one bridge on a fixed port and data dir, as a user runs it. */
export function bridgeProcess(options: BridgeProcessOptions): BridgeProcess {
  let child: ChildProcess | undefined;
  // Across restarts: a restarted bridge's output follows the last one's.
  const output = new OutputTail();
  const exited = (proc: ChildProcess) =>
    new Promise<number | null>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) resolve(proc.exitCode);
      else proc.once('exit', (code) => resolve(code));
    });
  return {
    api: `http://127.0.0.1:${options.port}`,
    start(pollInterval = options.pollInterval) {
      child = spawn(
        process.execPath,
        [
          BIN_PATH,
          'start',
          '--port',
          String(options.port),
          '--data-dir',
          options.dataDir,
          '--poll-interval',
          pollInterval,
        ],
        {
          env: { ...process.env, ...options.env },
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true,
        },
      );
      output.follow(child.stdout);
      output.follow(child.stderr);
    },
    async kill() {
      const proc = child;
      if (!proc?.pid) return;
      const done = exited(proc);
      try {
        process.kill(-proc.pid, 'SIGKILL');
      } catch {
        proc.kill('SIGKILL');
      }
      await done;
      child = undefined;
    },
    async stop() {
      const proc = child;
      if (!proc) return null;
      const done = exited(proc);
      proc.kill('SIGTERM');
      child = undefined;
      return done;
    },
    tail: () => output.read(),
  };
}
