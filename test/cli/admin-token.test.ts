import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startCliHarness } from '../admin/support/cli.ts';
import { runCliHere } from '../support/run-cli.ts';

let cli: Awaited<ReturnType<typeof startCliHarness>>;
beforeAll(async () => {
  cli = await startCliHarness({ token: 'cli-token-1234' });
});
afterAll(async () => {
  await cli?.close();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the CLI against an admin API with BRIDGE_ADMIN_TOKEN', () => {
  it('works when BRIDGE_ADMIN_TOKEN holds the token', async () => {
    vi.stubEnv('BRIDGE_ADMIN_TOKEN', 'cli-token-1234');
    const added = await cli.run(['subscriptions', 'add', '--url', 'http://127.0.0.1:9000/hook']);
    expect(added.code, added.stderr).toBe(0);
    const id = /sub_\w+/.exec(added.stdout)![0];
    const listed = await cli.run(['subscriptions', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(id);
    expect((await cli.run(['streams', 'list'])).code).toBe(0);
  });

  it('exits 1 naming BRIDGE_ADMIN_TOKEN without it, and creates nothing', async () => {
    vi.stubEnv('BRIDGE_ADMIN_TOKEN', undefined);
    const before = (await cli.harness.deps.webhooks.listSubscriptions()).length;
    const added = await cli.run(['subscriptions', 'add', '--url', 'http://127.0.0.1:9000/x']);
    expect(added.code).toBe(1);
    expect(added.stderr).toMatch(/needs a token: set BRIDGE_ADMIN_TOKEN/);
    expect((await cli.harness.deps.webhooks.listSubscriptions()).length).toBe(before);
  });

  it('exits 1 with a wrong token', async () => {
    vi.stubEnv('BRIDGE_ADMIN_TOKEN', 'not-the-token');
    const listed = await cli.run(['subscriptions', 'list']);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toMatch(/refused BRIDGE_ADMIN_TOKEN/);
  });
});

describe('change-bridge start off loopback', () => {
  it('refuses to start without BRIDGE_ADMIN_TOKEN, exit 2 naming the variable', async () => {
    // In this process: the configuration is refused before any data dir is opened (the
    // executable's exit-2 path is start-bad-environment's).
    const result = await runCliHere(['start', '--host', '0.0.0.0', '--port', '0'], {
      BRIDGE_ADMIN_TOKEN: '',
      BRIDGE_DATA_DIR: '/nonexistent/never-created',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/BRIDGE_ADMIN_TOKEN/);
  });
});
