import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/main.ts';
import { type ClosingListener, startClosingListener } from '../support/closing-listener.ts';

async function run(argv: readonly string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

// fetch never connects to the ports browsers block (6000, 6665…, 10080): an --api URL on one is
// bad input, refused before any request as BRIDGE_PORT on one is. Before, the command tried the
// request and exited 1, "cannot reach the admin API at http://127.0.0.1:6000: fetch never…".
describe('the CLI given an --api URL on a port fetch blocks', () => {
  it.each([
    [['streams', 'list'], 'http://127.0.0.1:6000', '6000'],
    [['call', 'taxEnvironments/getAll', '--via-bridge'], 'http://127.0.0.1:6000', '6000'],
    [['subscriptions', 'list'], 'https://bridge.example:10080/admin', '10080'],
    [['deliveries', 'list', '--json'], 'http://localhost:6667', '6667'],
  ])('%j with --api %s exits 2 naming --api and the port', async (args, api, port) => {
    const result = await run([...args, '--api', api]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      `configuration is invalid: --api: "${api}": fetch never connects to port ${port} (a port browsers block too); run "change-bridge start" on another --port or BRIDGE_PORT`,
    );
    expect(result.stderr).not.toContain('cannot reach');
    expect(result.stderr).not.toContain('fetch failed');
  });
});

describe('the CLI given an --api URL on a port fetch connects to', () => {
  // Closes every connection: what reaches it is a request the command made.
  let listener: ClosingListener;

  beforeAll(async () => {
    listener = await startClosingListener();
  });

  afterAll(async () => {
    await listener.close();
  });

  it('sends the request, and exits 1 when no admin API answers', async () => {
    const { port } = listener;
    const result = await run(['streams', 'list', '--api', `http://127.0.0.1:${port}`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot reach the admin API at http://127.0.0.1:${port}`);
    expect(listener.connections()).toBeGreaterThan(0);
  });
});
