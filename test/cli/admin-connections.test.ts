import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startAdminServer } from '../../shared/admin/node-server.ts';
import { type CliRun, startCliHarness } from '../admin/support/cli.ts';
import { streamState } from '../state/state-store.contract.ts';

const TOKEN = 'cli-hotel-token-51b0';

let cli: Awaited<ReturnType<typeof startCliHarness>>;
const runs: CliRun[] = [];

async function run(args: readonly string[], stdin?: string): Promise<CliRun> {
  const result = await cli.run(args, stdin === undefined ? {} : { stdin });
  runs.push(result);
  return result;
}

beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  // Nothing any command printed, on stdout or stderr, holds the token.
  for (const result of runs) expect(`${result.stdout}\n${result.stderr}`).not.toContain(TOKEN);
  await cli?.close();
});

describe('change-bridge connections', () => {
  it('add reads the token from stdin and prints the connection without it', async () => {
    const added = await run(
      [
        'connections',
        'add',
        '--id',
        'hotel-1',
        '--access-token-stdin',
        '--entities',
        'customer',
        '--interval',
        '1m',
      ],
      `${TOKEN}\n`,
    );

    expect(added.code).toBe(0);
    expect(added.stdout).toContain('Added connection hotel-1 (enabled, store)');
    const stored = await cli.harness.connections.get('hotel-1');
    expect(await cli.harness.deps.connections!.cipher.open('hotel-1', stored!.accessToken)).toBe(
      TOKEN,
    );
  });

  it('add reads the token from a file, and --json prints one document', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cb-token-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'token');
    await writeFile(file, `${TOKEN}\n`, { mode: 0o600 });
    const added = await run([
      'connections',
      'add',
      '--id',
      'hotel-2',
      '--access-token-file',
      file,
      '--initial-sync',
      'emit',
      '--json',
    ]);

    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      id: 'hotel-2',
      initialSync: 'emit',
      enabled: true,
    });
  });

  it('add exits 2 without a token source, with an empty token, or with a bad field', async () => {
    const none = await run(['connections', 'add', '--id', 'x']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--access-token-stdin');
    const empty = await run(['connections', 'add', '--id', 'x', '--access-token-stdin'], '\n');
    expect(empty.code).toBe(2);
    const interval = await run(
      ['connections', 'add', '--id', 'x', '--access-token-stdin', '--interval', 'soon'],
      TOKEN,
    );
    expect(interval.code).toBe(2);
    expect(interval.stderr).toContain('interval');
    const taken = await run(
      ['connections', 'add', '--id', 'hotel-1', '--access-token-stdin'],
      TOKEN,
    );
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('exists already');
  });

  it('add exits 2 for a token file of two lines or not UTF-8, naming the flag it came from, storing nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cb-token-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const twoLines = join(dir, 'env');
    await writeFile(twoLines, `${TOKEN}\nCONNECTOR_CLIENT_TOKEN=x\n`, { mode: 0o600 });
    // PowerShell 5's `>` writes UTF-16LE with a byte order mark.
    const utf16 = join(dir, 'token-utf16');
    await writeFile(utf16, Buffer.from(`\uFEFF${TOKEN}\r\n`, 'utf16le'), { mode: 0o600 });

    for (const file of [twoLines, utf16]) {
      const refused = await run(['connections', 'add', '--id', 'x', '--access-token-file', file]);
      expect(refused.code).toBe(2);
      // The flag the token came from, not both.
      expect(refused.stderr).toMatch(/^error: --access-token-file: must be/);
      expect(refused.stderr).not.toContain('--access-token-stdin');
      expect(refused.stderr).not.toContain('CONNECTOR_CLIENT_TOKEN');
    }
    const inline = await run(
      ['connections', 'add', '--id', 'x', '--access-token-stdin'],
      `${TOKEN} x`,
    );
    expect(inline.code).toBe(2);
    expect(inline.stderr).toMatch(/^error: --access-token-stdin: must be/);
    expect(await cli.harness.connections.get('x')).toBeUndefined();
  });

  it('list, show, disable, enable and remove manage connections; unknown ids exit 1', async () => {
    const list = await run(['connections', 'list']);
    expect(list.stdout.split('\n')[0]).toMatch(
      /^ID\s+STATE\s+PARKED\s+ENTITIES\s+INTERVAL\s+ORIGIN\s+CREATED$/,
    );
    expect(list.stdout).toMatch(/hotel-1\s+enabled\s+-\s+1\s+1m\s+store/);
    expect(list.stdout).toMatch(/main\s+enabled\s+-\s+default\s+default\s+environment/);
    expect((await run(['connections', 'show', 'hotel-1'])).stdout).toContain(
      'entities      customer',
    );
    expect((await run(['connections', 'show', 'main'])).stdout).toContain(
      "initial sync  the deployment's (INITIAL_SYNC)",
    );

    expect((await run(['connections', 'disable', 'hotel-1'])).stdout).toBe(
      'Disabled connection hotel-1',
    );
    expect((await cli.harness.connections.get('hotel-1'))?.enabled).toBe(false);
    expect((await run(['connections', 'enable', 'hotel-1'])).code).toBe(0);
    const removed = await run(['connections', 'remove', 'hotel-1', '--keep-state']);
    expect(removed.stdout).toContain('its streams’ state was kept');
    expect(await cli.harness.connections.get('hotel-1')).toBeUndefined();
    expect((await run(['connections', 'show', 'hotel-1'])).code).toBe(1);
    const listed = JSON.parse((await run(['connections', 'list', '--json'])).stdout);
    expect(listed.map((c: { id: string }) => c.id)).toEqual(['main', 'hotel-2']);
  });

  it('remove says when the streams’ snapshots are deleted in the background (AWS)', async () => {
    // The same deps as the AWS admin function answers them.
    const aws = await startAdminServer({
      port: 0,
      deps: { ...cli.harness.deps, stateRemoval: 'background' },
    });
    onTestFinished(() => aws.close());
    await cli.harness.state.saveStream(streamState('hotel-2:customer'), 0);

    const removed = await cli.run(['connections', 'remove', 'hotel-2', '--api', aws.url], {
      api: false,
    });
    expect(removed.stdout).toBe(
      'Removed connection hotel-2 and its token; 1 streams’ state removed (hidden now; their snapshots are deleted in the background within minutes)',
    );
    const json = await run(['connections', 'list', '--json']);
    expect(JSON.parse(json.stdout).map((c: { id: string }) => c.id)).toEqual(['main']);
  });
});
