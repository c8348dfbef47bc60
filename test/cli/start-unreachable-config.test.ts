import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetch } from 'undici';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../shared/cli/main.ts';
import { FETCH_BLOCKED_PORTS } from '../../shared/fetch-blocked-ports.ts';

// A data dir under a file: were start to go on, it would fail there at once (exit 1).
const scratch = mkdtempSync(join(tmpdir(), 'start-unreachable-'));
writeFileSync(join(scratch, 'file'), '');
const UNOPENABLE_DATA_DIR = join(scratch, 'file', 'data');

afterEach(() => {
  vi.unstubAllEnvs();
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

async function run(argv: readonly string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('change-bridge start with an admin API nothing could reach', () => {
  it('exits 2 on a port fetch never connects to, naming --port or BRIDGE_PORT', async () => {
    vi.stubEnv('BRIDGE_DATA_DIR', UNOPENABLE_DATA_DIR);
    const flag = await run(['start', '--port', '6000']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--port: 6000 is a port fetch and browsers never connect to');
    vi.stubEnv('BRIDGE_PORT', '10080');
    const variable = await run(['start']);
    expect(variable.code).toBe(2);
    expect(variable.stderr).toContain('BRIDGE_PORT: 10080 is a port fetch and browsers never');
  });

  it('exits 2 on a BRIDGE_ADMIN_TOKEN no header can carry, without printing it', async () => {
    vi.stubEnv('BRIDGE_DATA_DIR', UNOPENABLE_DATA_DIR);
    vi.stubEnv('BRIDGE_PORT', '0');
    vi.stubEnv('BRIDGE_ADMIN_TOKEN', 'secret-1\nsecret-2');
    const result = await run(['start']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('BRIDGE_ADMIN_TOKEN: must be printable ASCII');
    expect(result.stderr).not.toContain('secret-');
  });
});

describe('the ports start refuses', () => {
  it('are those the CLI fetch refuses, each of them', async () => {
    expect(FETCH_BLOCKED_PORTS.has(6000)).toBe(true);
    for (const port of FETCH_BLOCKED_PORTS) {
      const refusal = await fetch(`http://127.0.0.1:${port}/`).catch((error: unknown) => error);
      expect(refusal, String(port)).toMatchObject({ cause: { message: 'bad port' } });
    }
  });
});
