import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/main.ts';
import { LOCAL_KEY_FILE_NAME } from '../../shared/connections/local-key-file.ts';
import { jsonReporter } from '../../shared/local/reporter.ts';
import { type RunningBridge, startBridge } from '../../shared/local/runtime.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { testLocalConfig } from '../support/local-config.ts';
import { BIN_PATH } from '../support/run-bin.ts';
import { waitFor } from '../support/wait-for.ts';

/** Runs the `change-bridge` executable with `stdin` piped in, as a user's shell would. */
function runBinWithStdin(
  args: readonly string[],
  stdin: string,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN_PATH, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(stdin);
  });
}

/** Tokens no other output could contain by chance, so any hit is a leak. */
const TOKENS = {
  clientToken: 'client-token-0d7c1e93a4b2',
  accessToken: 'access-token-5e8f2a61c0d7',
  portfolioToken: 'portfolio-token-b31f9e04d6a8',
};

type StreamRow = {
  id: string;
  connectionId: string;
  lastPollAt: string | null;
  lastSuccessAt: string | null;
  nextDueAt: string | null;
  initialSyncDone: boolean;
};

describe('connections added, disabled and removed at run time', () => {
  let sim: RunningSimulator;
  let bridge: RunningBridge;
  let dataDir: string;
  /** Every log line of the bridge, every CLI output and every API answer. */
  const seen: string[] = [];

  async function cli(args: readonly string[], stdin?: string) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli([...args, '--api', bridge.adminUrl], {
      out: (text) => out.push(text),
      err: (text) => err.push(text),
      readStdin: async () => stdin ?? '',
    });
    seen.push(...out, ...err);
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  }

  async function streams(): Promise<StreamRow[]> {
    const response = await fetch(`${bridge.adminUrl}/streams`);
    const text = await response.text();
    seen.push(text);
    return (JSON.parse(text) as { streams: StreamRow[] }).streams;
  }

  async function stream(id: string): Promise<StreamRow | undefined> {
    return (await streams()).find((row) => row.id === id);
  }

  beforeAll(async () => {
    sim = await startSimulator({ seed: 23, size: 'small', rateLimit: false, tokens: TOKENS });
    dataDir = await mkdtemp(join(tmpdir(), 'cb-connections-'));
    bridge = await startBridge(testLocalConfig(dataDir, 1000), {
      env: {
        CONNECTOR_BASE_URL: sim.url,
        CONNECTOR_CLIENT_TOKEN: TOKENS.clientToken,
        CONNECTOR_ACCESS_TOKEN: TOKENS.accessToken,
        POLL_ENTITIES: 'customer',
        POLL_HISTORY_START: '30d',
      },
      reporter: jsonReporter({ write: (line) => seen.push(line), now: () => Date.now() }),
    });
  }, 30_000);

  afterAll(async () => {
    await bridge?.stop();
    await sim?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('polls a connection added through the CLI without a restart, stops it on disable, forgets it on remove, and never shows its token', async () => {
    const chainId = sim.controls.model.world.chainId;
    const added = await cli(
      [
        'connections',
        'add',
        '--id',
        'hotel-2',
        '--access-token-stdin',
        '--portfolio-scope',
        `chain:${chainId}`,
        '--entities',
        'customer',
        '--interval',
        '1s',
      ],
      `${TOKENS.portfolioToken}\n`,
    );
    expect(added.code, added.stderr).toBe(0);
    expect((await stat(join(dataDir, LOCAL_KEY_FILE_NAME))).mode & 0o777).toBe(0o600);

    const polled = await waitFor(
      async () => (await stream('hotel-2:customer'))?.lastSuccessAt ?? false,
      15_000,
      'the added connection’s first successful poll',
    );
    expect(polled).toBeTruthy();

    expect((await cli(['connections', 'disable', 'hotel-2'])).code).toBe(0);
    const frozen = await stream('hotel-2:customer');
    // Two more polls of the environment's connection: the disabled one's would have run too.
    const localBefore = (await stream('local:customer'))?.lastPollAt;
    await waitFor(
      async () => {
        const now = (await stream('local:customer'))?.lastPollAt;
        return now !== localBefore && now;
      },
      10_000,
      'a poll of the local connection',
    );
    const localMiddle = (await stream('local:customer'))?.lastPollAt;
    await waitFor(
      async () => (await stream('local:customer'))?.lastPollAt !== localMiddle,
      10_000,
      'another poll of the local connection',
    );
    expect((await stream('hotel-2:customer'))?.lastPollAt).toBe(frozen?.lastPollAt);
    expect(frozen?.lastPollAt).toBeTruthy();

    const removed = await cli(['connections', 'remove', 'hotel-2', '--json']);
    expect(JSON.parse(removed.stdout)).toEqual({
      id: 'hotel-2',
      removed: true,
      streamsDeleted: 1,
      stateDeletion: 'done',
    });
    expect(await stream('hotel-2:customer')).toBeUndefined();
    expect((await cli(['connections', 'show', 'hotel-2'])).code).toBe(1);
    const listed = await cli(['connections', 'list', '--json']);
    expect(JSON.parse(listed.stdout).map((c: { id: string }) => c.id)).toEqual(['local']);

    const everything = seen.join('\n');
    expect(everything.length).toBeGreaterThan(0);
    for (const token of Object.values(TOKENS)) expect(everything).not.toContain(token);
  }, 60_000);

  it('polls a connection re-added with --keep-state and a shorter --interval within the new interval', async () => {
    const addArgs = (interval: string) => [
      'connections',
      'add',
      '--id',
      'hotel-4',
      '--access-token-stdin',
      '--entities',
      'customer',
      '--interval',
      interval,
    ];
    expect((await cli(addArgs('1m'), `${TOKENS.accessToken}\n`)).code).toBe(0);
    // Caught up under 1 minute: its next poll a minute after its last.
    const synced = await waitFor(
      async () => {
        const row = await stream('hotel-4:customer');
        return row?.initialSyncDone &&
          row.nextDueAt &&
          Date.parse(row.nextDueAt) > Date.now() + 30_000
          ? row
          : false;
      },
      15_000,
      'the first sync of the connection polled every minute',
    );
    const removed = await cli(['connections', 'remove', 'hotel-4', '--keep-state', '--json']);
    expect(JSON.parse(removed.stdout)).toMatchObject({ streamsDeleted: 0 });

    expect((await cli(addArgs('1s'), `${TOKENS.accessToken}\n`)).code).toBe(0);

    await waitFor(
      async () => (await stream('hotel-4:customer'))?.lastPollAt !== synced.lastPollAt,
      10_000,
      'a poll of the re-added connection within its new interval, not its kept minute',
    );
    expect((await cli(['connections', 'remove', 'hotel-4'])).code).toBe(0);
  }, 40_000);

  it('reads the token from the stdin of the real executable', async () => {
    const added = await runBinWithStdin(
      [
        'connections',
        'add',
        '--id',
        'hotel-3',
        '--access-token-stdin',
        '--entities',
        'customer',
        '--json',
        '--api',
        bridge.adminUrl,
      ],
      `${TOKENS.accessToken}\n`,
    );
    seen.push(added.output);

    expect(added.code, added.output).toBe(0);
    expect(JSON.parse(added.output)).toMatchObject({ id: 'hotel-3', enabled: true });
    await waitFor(
      async () => (await stream('hotel-3:customer'))?.lastSuccessAt ?? false,
      15_000,
      'the first poll of the connection added by the executable',
    );
    for (const token of Object.values(TOKENS)) expect(seen.join('\n')).not.toContain(token);
  }, 30_000);
});
