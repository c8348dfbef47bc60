import { describe, expect, it } from 'vitest';
import { runBin } from '../support/run-bin.ts';

/**
 * A handle that would hold the event loop for good, opened before the CLI loads: what a host
 * lookup that never answers leaves behind (getaddrinfo cannot be cancelled), made certain.
 */
// No spaces: NODE_OPTIONS splits on them.
const LEFTOVER_HANDLE = 'data:text/javascript,setInterval(()=>{},60000)';

describe('once a command has ended', () => {
  it('a handle still open does not hold the process: it exits with the command’s code within seconds', async () => {
    const env = { NODE_OPTIONS: `--import=${LEFTOVER_HANDLE}` };
    const startedAt = performance.now();
    const version = await runBin(['--version'], env, 15_000);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const usage = await runBin(['events', 'list', '--limit', '0'], env, 15_000);
    expect(usage.code).toBe(2);
    // Each run: node's start and the CLI's load, then at most the second's grace (not 15 s).
    expect(performance.now() - startedAt).toBeLessThan(12_000);
  });
});
