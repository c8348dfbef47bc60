import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Flags for Chromium on this machine: headless, no sandbox (root in a container), and no
 * background networking, whose connections the closed network refuses.
 */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/**
 * The Chromium to drive: `CHROMIUM_PATH`, Debian's `/usr/bin/chromium`, or whichever
 * chromium is on PATH; undefined when none is installed (`.ci/run` installs it with apt).
 */
export function findChromium(env: Record<string, string | undefined>): string | undefined {
  if (env.CHROMIUM_PATH && existsSync(env.CHROMIUM_PATH)) return env.CHROMIUM_PATH;
  const found = CANDIDATES.find((path) => existsSync(path));
  if (found) return found;
  try {
    const onPath = execFileSync(
      'sh',
      ['-c', 'command -v chromium || command -v chromium-browser'],
      {
        encoding: 'utf8',
      },
    ).trim();
    return onPath || undefined;
  } catch {
    return undefined;
  }
}
