import { describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/main.ts';
import { freePort } from '../support/free-port.ts';

// A port nothing listens on: a request there is refused (ECONNREFUSED), and fetch connects to it.
const UNLISTENED_API = `http://127.0.0.1:${await freePort()}`;

async function run(argv: readonly string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('--api of the admin commands and call', () => {
  it.each(['http://127.0.0.1:4000?x=1', 'http://127.0.0.1:4000/#top'])(
    'refuses %s (exit 2 naming --api): the request paths would follow its query or fragment',
    async (api) => {
      for (const args of [
        ['streams', 'list'],
        ['call', 'taxEnvironments/getAll'],
      ]) {
        const result = await run([...args, '--api', api]);
        expect(result.code).toBe(2);
        expect(result.stderr).toContain('configuration is invalid: --api: ');
        expect(result.stderr).toContain('carries a query or fragment');
      }
    },
  );

  it('refuses a URL with a user and password (exit 2), without printing the password', async () => {
    for (const args of [
      ['streams', 'list'],
      ['call', 'taxEnvironments/getAll'],
    ]) {
      const result = await run([...args, '--api', 'http://admin:pw-5e3cr3t@127.0.0.1:4000']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        'configuration is invalid: --api: must not carry a user or password',
      );
      // Before: exit 1, "cannot reach the admin API at http://admin:pw-5e3cr3t@…".
      expect(result.stderr).not.toContain('pw-5e3cr3t');
      expect(result.stdout).toBe('');
    }
  });

  it('takes a base URL with a path, and trailing slashes', async () => {
    // Nothing listens at UNLISTENED_API: reaching the request shows the URL was taken.
    const result = await run(['streams', 'list', '--api', `${UNLISTENED_API}/bridge//`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot reach the admin API at ${UNLISTENED_API}/bridge (`);
  });
});
