import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../shared/cli/main.ts';
import { freePort } from '../support/free-port.ts';

// A port nothing listens on: a request there is refused (ECONNREFUSED), and fetch connects to it.
const UNLISTENED_API = `http://127.0.0.1:${await freePort()}`;

afterEach(() => {
  vi.unstubAllEnvs();
});

async function run(argv: readonly string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('a BRIDGE_ADMIN_TOKEN no header can carry', () => {
  it.each([
    ['a line break inside', 'tok-1\ntok-2'],
    ['a control character', 'tok\u0001en'],
    ['a character beyond ASCII', 'tok-密码'],
  ])('with %s exits 2 naming BRIDGE_ADMIN_TOKEN, without printing it', async (_what, token) => {
    vi.stubEnv('BRIDGE_ADMIN_TOKEN', token);
    for (const args of [
      ['streams', 'list'],
      ['call', 'taxEnvironments/getAll', '--via-bridge'],
    ]) {
      // The token is refused before any request either way.
      const result = await run([...args, '--api', UNLISTENED_API]);
      expect(result.code).toBe(2);
      // Before: exit 1, "cannot reach the admin API … (UND_ERR_INVALID_ARG)" or "fetch failed".
      expect(result.stderr).toContain('BRIDGE_ADMIN_TOKEN: must be printable ASCII');
      expect(result.stderr).not.toContain(token);
      expect(result.stdout).toBe('');
    }
  });
});
