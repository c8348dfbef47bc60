import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { OutputTail } from '../support/output-tail.ts';
import { BIN_PATH } from '../support/run-bin.ts';
import { runCliHere } from '../support/run-cli.ts';

const TOKEN = 'e2e-admin-token-5f1c';

describe('change-bridge start with BRIDGE_ADMIN_TOKEN', () => {
  let child: ChildProcess | undefined;
  let dataDir: string;
  let banner = '';
  let port = 0;
  let api = '';

  beforeAll(async () => {
    port = await freePort();
    api = `http://127.0.0.1:${port}`;
    dataDir = await mkdtemp(join(tmpdir(), 'bridge-token-'));
    const { CONNECTOR_BASE_URL: _external, ...env } = process.env;
    child = spawn(
      process.execPath,
      [BIN_PATH, 'start', '--port', String(port), '--data-dir', dataDir],
      {
        env: { ...env, BRIDGE_ADMIN_TOKEN: TOKEN },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    // What a start that fails says, for the error below.
    const said = new OutputTail();
    said.follow(child.stderr);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no banner: ${banner} ${said.read()}`)),
        60_000,
      );
      const failed = (code: number | null) => {
        clearTimeout(timer);
        void said.final().then((text) => reject(new Error(`start exited with ${code}: ${text}`)));
      };
      child!.once('exit', failed);
      child!.stdout!.on('data', (chunk: Buffer) => {
        banner += chunk.toString('utf8');
        if (banner.includes('Events:')) {
          clearTimeout(timer);
          child!.off('exit', failed);
          resolve();
        }
      });
    });
  }, 90_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('prints product ids with their time unit in the banner', () => {
    const lines = banner
      .split('\n')
      .filter((line) => /[0-9a-f-]{36} {2}Day \(from local midnight, /.test(line));
    expect(lines.length).toBe(3);
    expect(banner).toMatch(/ {2}products {7}[0-9a-f-]{36} {2}Day/);
  });

  it('serves the API and the CLI with the token and refuses them without it', async () => {
    const withToken = await fetch(`${api}/streams`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(withToken.status).toBe(200);
    expect((await fetch(`${api}/streams`)).status).toBe(401);
    // The console page holds no data: it opens without the token and asks for it.
    expect((await fetch(`${api}/`)).status).toBe(200);

    // The CLI's commands run in this process (as the executable runs them), with the token
    // from the environment: the bridge they talk to is the child started above.
    const added = await runCliHere(
      ['subscriptions', 'add', '--url', 'http://127.0.0.1:8/hook', '--json', '--api', api],
      { BRIDGE_ADMIN_TOKEN: TOKEN },
    );
    expect(added.code, added.stderr).toBe(0);
    const refused = await runCliHere(['subscriptions', 'list', '--api', api], {
      BRIDGE_ADMIN_TOKEN: '',
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/BRIDGE_ADMIN_TOKEN/);
    const listed = await runCliHere(['subscriptions', 'list', '--json', '--api', api], {
      BRIDGE_ADMIN_TOKEN: TOKEN,
    });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(JSON.parse(added.stdout).id);
  }, 60_000);
});
