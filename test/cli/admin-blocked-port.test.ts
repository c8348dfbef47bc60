import { describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/main.ts';

async function run(argv: readonly string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

// fetch never connects to the ports browsers block (6000, 6665…, 10080): `start --port 6000`
// listens there, and the CLI must say why it cannot talk to it rather than "fetch failed".
describe('the CLI and an admin API on a port fetch blocks', () => {
  it.each([[['streams', 'list']], [['call', 'taxEnvironments/getAll', '--via-bridge']]])(
    '%s says the port is one fetch never connects to, exit 1',
    async (args) => {
      const result = await run([...args, '--api', 'http://127.0.0.1:6000']);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(
        'cannot reach the admin API at http://127.0.0.1:6000: fetch never connects to port 6000 (a port browsers block too); run "change-bridge start" on another --port or BRIDGE_PORT',
      );
      expect(result.stderr).not.toContain('fetch failed');
    },
  );
});
