import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Path of the `change-bridge` executable in this repository. */
export const BIN_PATH = fileURLToPath(new URL('../../bin/change-bridge.js', import.meta.url));

/** What a finished CLI process left behind. */
export interface BinResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Who the child runs as (spawn's `uid` and `gid`); default: this process's user. */
export interface BinUser {
  uid: number;
  gid: number;
}

/**
 * The user `nobody` (65534) when this process runs as root, where a permission denied cannot
 * happen otherwise (CI runs as root); undefined for anyone else, who is refused as such.
 */
export function unprivilegedUser(): BinUser | undefined {
  return process.getuid?.() === 0 ? { uid: 65_534, gid: 65_534 } : undefined;
}

/** Runs `change-bridge ARGS` as a child process and collects its output. */
export function runBin(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 20_000,
  user?: BinUser,
): Promise<BinResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN_PATH, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...user,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
