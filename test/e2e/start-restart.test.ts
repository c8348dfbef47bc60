import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorEnvOf } from '../../shared/simulator/connector-env.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { compareEvents } from '../polling/journal-oracle.ts';
import { freePort } from '../support/free-port.ts';
import { modelContent } from '../support/model-content.ts';
import { BIN_PATH, runBin } from '../support/run-bin.ts';
import { expectedLocalEvents, recordEnterprises } from '../support/visible-changes.ts';
import { waitFor } from '../support/wait-for.ts';
import { startTestReceiver, type TestReceiver } from './webhook-receiver.ts';

/** Deliveries a running bridge makes of the activity before the test moves on. */
const LIVE_DELIVERIES = 10;

describe('change-bridge start as a child process', () => {
  let sim: RunningSimulator;
  let receiver: TestReceiver;
  let dataDir: string;
  let child: ChildProcess | undefined;
  let port = 0;
  let api = '';

  function startBridgeProcess(): ChildProcess {
    const proc = spawn(
      process.execPath,
      [
        BIN_PATH,
        'start',
        '--port',
        String(port),
        '--data-dir',
        dataDir,
        '--poll-interval',
        '2s',
        '--json',
      ],
      {
        env: {
          ...process.env,
          ...connectorEnvOf(sim),
          POLL_HISTORY_START: '400d',
          // The simulator's limit is off: the client's own budget (200 per 30 s) would only pace
          // the first sync's 50-odd requests 150 ms apart (~8 s), which this test is not about.
          CONNECTOR_RATE_LIMIT: 'off',
          // The store in its own thread: closed and reopened across the SIGTERM and restart.
          BRIDGE_STORE_THREAD: 'true',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    proc.stdout?.resume();
    proc.stderr?.resume();
    return proc;
  }

  async function streamsCaughtUp(): Promise<boolean> {
    try {
      const response = await fetch(`${api}/streams`);
      if (!response.ok) return false;
      const { streams } = (await response.json()) as {
        streams: { lastSuccessAt?: string | number | null }[];
      };
      return streams.length > 0 && streams.every((stream) => stream.lastSuccessAt);
    } catch {
      return false;
    }
  }

  function exited(proc: ChildProcess): Promise<number | null> {
    return new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
  }

  beforeAll(async () => {
    port = await freePort();
    api = `http://127.0.0.1:${port}`;
    sim = await startSimulator({ seed: 3, size: 'small', rateLimit: false });
    receiver = await startTestReceiver();
    dataDir = await mkdtemp(join(tmpdir(), 'bridge-e2e-'));
  });

  afterAll(async () => {
    child?.kill('SIGKILL');
    sim.controls.stopActivity();
    await receiver.close();
    await sim.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('delivers every journaled change across a SIGTERM and a restart', async () => {
    // The first sync only sets the baseline. No budget paces it (CONNECTOR_RATE_LIMIT=off), so
    // the live polls of the streams already synced hold back none of its windows.
    child = startBridgeProcess();
    await waitFor(streamsCaughtUp, 60_000, 'the first sync', 200);

    const added = await runBin([
      'subscriptions',
      'add',
      '--url',
      receiver.url,
      '--json',
      '--api',
      api,
    ]);
    expect(added.code).toBe(0);
    const subscription = JSON.parse(added.stdout) as { id: string; secret: string };
    expect(subscription.secret).toMatch(/^whsec_/);
    receiver.setSecret(subscription.secret);

    const from = sim.controls.journal().at(-1)?.seq ?? 0;
    const before = modelContent(sim);
    const enterprises = new Map<string, string>();
    recordEnterprises(sim, enterprises);
    sim.controls.startActivity(15);
    // Changes the first process delivers live (before, a fixed 5 s whatever it delivered).
    await waitFor(
      () => receiver.received.length >= LIVE_DELIVERIES,
      45_000,
      'live deliveries before the SIGTERM',
      100,
    );

    const stopped = exited(child);
    child.kill('SIGTERM');
    expect(await stopped).toBe(0);
    // Changes while no bridge runs.
    await new Promise((resolve) => setTimeout(resolve, 1500));

    // Changes go on while the restarted process starts, until it has delivered some (those made
    // while none ran come first); before, a fixed 4 s, whether or not it had polled by then.
    child = startBridgeProcess();
    const beforeRestart = receiver.received.length;
    await waitFor(
      () => receiver.received.length >= beforeRestart + LIVE_DELIVERIES,
      45_000,
      'live deliveries after the restart',
      100,
    );
    sim.controls.stopActivity();
    const entries = sim.controls.journal(from);
    const after = modelContent(sim);
    recordEnterprises(sim, enterprises);
    const expected = expectedLocalEvents(sim, entries, enterprises, before, after);
    expect(entries.length).toBeGreaterThan(50);

    const got = () => receiver.received.map(({ type, subject }) => ({ type, subject }));
    const covered = () => compareEvents(expected, got()).missing.length === 0;
    await waitFor(covered, 45_000, 'every change to be delivered', 200).catch(() => undefined);
    const { missing } = compareEvents(expected, got());
    // Expected counts each entity's net change over the run; delivered counts every change a poll
    // saw (an entity updated twice between polls is one webhook, between two polls two), so more
    // deliveries than expected changes is normal: what must hold is that none is missing.
    console.log(
      `journaled ${entries.length}, expected net changes ${expected.length}, delivered (per poll) ${receiver.received.length}, missing ${missing.length}`,
    );
    expect(missing).toEqual([]);
    expect(receiver.rejected).toBe(0);

    const stoppedAgain = exited(child);
    child.kill('SIGTERM');
    expect(await stoppedAgain).toBe(0);
    child = undefined;
  }, 180_000);
});
