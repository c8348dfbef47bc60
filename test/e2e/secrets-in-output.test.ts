import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { freePort } from '../support/free-port.ts';
import { BIN_PATH, runBin } from '../support/run-bin.ts';
import { runCliHere } from '../support/run-cli.ts';
import { startTestReceiver, type TestReceiver } from './webhook-receiver.ts';

/** Tokens no other output could contain by chance, so any hit is a leak. */
const TOKENS = {
  clientToken: 'client-token-4f1d9a77c2e84b0c',
  accessToken: 'access-token-9b2e61d03fa74c55',
  portfolioToken: 'portfolio-token-7c3a50e1d96b4f28',
};

async function until(condition: () => Promise<boolean> | boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('timed out');
}

/** Every secret-shaped value in `text`, so a failure shows which one leaked and where. */
function leaksIn(text: string, secrets: readonly string[]): string[] {
  return secrets.filter((secret) => text.includes(secret));
}

describe('secrets in the output of a full run', () => {
  let sim: RunningSimulator;
  let receiver: TestReceiver;
  let dataDir: string;
  let child: ChildProcess | undefined;
  let port = 0;
  let api = '';
  let output = '';

  beforeAll(async () => {
    port = await freePort();
    api = `http://127.0.0.1:${port}`;
    sim = await startSimulator({ seed: 5, size: 'small', rateLimit: false, tokens: TOKENS });
    receiver = await startTestReceiver();
    dataDir = await mkdtemp(join(tmpdir(), 'bridge-secrets-'));
  });

  afterAll(async () => {
    child?.kill('SIGKILL');
    sim.controls.stopActivity();
    await receiver.close();
    await sim.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('never prints a connector token or a signing secret, nor answers one after creation', async () => {
    child = spawn(
      process.execPath,
      [BIN_PATH, 'start', '--port', String(port), '--data-dir', dataDir, '--poll-interval', '1s'],
      {
        env: {
          ...process.env,
          CONNECTOR_BASE_URL: sim.url,
          CONNECTOR_CLIENT_TOKEN: TOKENS.clientToken,
          CONNECTOR_ACCESS_TOKEN: TOKENS.accessToken,
          POLL_HISTORY_START: '30d',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    await until(
      async () => (await fetch(`${api}/streams`).catch(() => undefined))?.ok ?? false,
      60_000,
    );

    // Set-up, whose output holds the secret by design: the CLI's commands in this process (the
    // listings below, whose output is checked, run as the executable).
    const added = await runCliHere([
      'subscriptions',
      'add',
      '--url',
      receiver.url,
      '--json',
      '--api',
      api,
    ]);
    expect(added.code).toBe(0);
    const { id, secret } = JSON.parse(added.stdout) as { id: string; secret: string };
    receiver.setSecret(secret);
    const rotated = await runCliHere([
      'subscriptions',
      'rotate-secret',
      id,
      '--json',
      '--api',
      api,
    ]);
    expect(rotated.code).toBe(0);
    const newSecret = (JSON.parse(rotated.stdout) as { secret: string }).secret;
    expect(newSecret).toMatch(/^whsec_/);
    receiver.setSecret(newSecret);

    sim.controls.startActivity(20);
    await until(() => receiver.received.length >= 10, 60_000);
    sim.controls.stopActivity();

    const secrets = [...Object.values(TOKENS), secret, newSecret];
    const answers: string[] = [];
    for (const path of [
      '/subscriptions',
      `/subscriptions/${id}`,
      '/events?limit=100',
      `/events/${receiver.received[0]!.webhookId}`,
      `/deliveries?subscription=${id}`,
      '/streams',
      '/openapi.json',
    ]) {
      const response = await fetch(`${api}${path}`);
      expect(response.status, path).toBe(200);
      answers.push(`${path}: ${await response.text()}`);
    }
    const listings = [
      ['subscriptions', 'list', '--json'],
      ['events', 'list', '--json'],
      ['deliveries', 'list', '--json'],
      ['streams', 'list', '--json'],
    ];
    // Reads, none depending on another: the four executables at once.
    const listed = await Promise.all(listings.map((args) => runBin([...args, '--api', api])));
    for (const [index, args] of listings.entries()) {
      expect(listed[index]!.code, args.join(' ')).toBe(0);
      answers.push(`${args.join(' ')}: ${listed[index]!.stdout}${listed[index]!.stderr}`);
    }

    const stopped = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    await stopped;
    child = undefined;

    expect(output.length).toBeGreaterThan(0);
    expect(leaksIn(output, secrets)).toEqual([]);
    for (const answer of answers) expect(leaksIn(answer, secrets), answer.slice(0, 80)).toEqual([]);
    expect(receiver.rejected).toBe(0);
  }, 180_000);
});
