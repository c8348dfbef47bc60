import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** A TypeScript module run in its own Node process (through tsx), and its first stdout line. */
export interface Child {
  process: ChildProcess;
  /** The first line the child printed on stdout (a JSON document by convention). */
  firstLine: Promise<string>;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
}

/**
 * Starts `bench/<relativePath>` in a child Node process with `env` added to ours;
 * `BENCH_CHILD_NODE_ARGS`: node flags for it, space-separated, to profile it (e.g. `--cpu-prof`).
 */
export function startChild(relativePath: string, env: Record<string, string>): Child {
  const file = fileURLToPath(new URL(`../${relativePath}`, import.meta.url));
  const nodeArgs = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', file], {
    // `--import tsx` resolves from the working directory: the repository's, wherever we run.
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const firstLine = new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    exited.then((code) => reject(new Error(`${relativePath} exited (${code}) before answering`)));
  });
  return { process: child, firstLine, exited };
}

/** Asks a child to stop (closes its stdin) and waits for it to exit. */
export async function stopChild(child: Child): Promise<void> {
  child.process.stdin?.end();
  await child.exited;
}

/** Resolves when this process's stdin ends: a child's signal to stop. */
export function untilStdinEnds(): Promise<void> {
  return new Promise((resolve) => {
    process.stdin.on('end', resolve);
    process.stdin.resume();
  });
}
