import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectorEnvOf } from '../../shared/simulator/connector-env.ts';
import { startSimulator } from '../../shared/simulator/simulator.ts';
import { bridgeProcess } from '../chaos/bridge-process.ts';
import { adminCaller, waitForFirstSync } from '../support/admin-call.ts';
import { freePort } from '../support/free-port.ts';
import { runBin } from '../support/run-bin.ts';

// Concurrent: each test has data dirs of its own, and the refused starts (a node and a CLI load
// each) run while the running bridge's first sync is under way.
describe.concurrent('change-bridge start on a data dir another process has open', () => {
  it('exits 1 naming that process, before opening the store or the queue', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'bridge-locked-'));
    // Stands in for a running change-bridge: the lock names a process that runs.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120_000)']);
    try {
      await writeFile(join(dataDir, 'LOCK'), String(holder.pid));
      const result = await runBin(['start', '--port', '0', '--data-dir', dataDir], {}, 60_000);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`in use by process ${holder.pid}`);
      expect(await readdir(dataDir)).toEqual(['LOCK']);
    } finally {
      holder.kill();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);

  it('refuses a second start beside a running one, exit 1, and the first goes on with its store', async () => {
    const sim = await startSimulator({ seed: 31, size: 'small', rateLimit: false });
    const dataDir = await mkdtemp(join(tmpdir(), 'bridge-twice-'));
    const env = { ...connectorEnvOf(sim), POLL_ENTITIES: 'customer', CONNECTOR_RATE_LIMIT: 'off' };
    const first = bridgeProcess({ port: await freePort(), dataDir, pollInterval: '500ms', env });
    const call = adminCaller(() => first.api);
    try {
      first.start();
      await waitForFirstSync((method, path) => call(method, path).catch(() => undefined));
      await call('POST', '/subscriptions', { url: 'http://127.0.0.1:8/hook' });
      const before = await readdir(dataDir);

      const second = await runBin(
        ['start', '--port', String(await freePort()), '--data-dir', dataDir],
        env,
        60_000,
      );
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/the data dir .* is in use by process \d+/);
      expect(second.stderr).not.toContain('Node.js v');
      expect(await readdir(dataDir)).toEqual(before);

      // The first still holds its lock and its store: it answers, and stops cleanly.
      const subscriptions = (await call('GET', '/subscriptions')) as { subscriptions: unknown[] };
      expect(subscriptions.subscriptions).toHaveLength(1);
      const third = await runBin(['start', '--port', '0', '--data-dir', dataDir], env, 60_000);
      expect(third.code).toBe(1);
      expect(await first.stop()).toBe(0);
    } finally {
      await first.kill();
      await sim.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);

  it('exits 2 naming --data-dir when the path is a file, as for any bad input', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'bridge-file-'));
    try {
      const file = join(parent, 'not-a-dir');
      await writeFile(file, '');
      const result = await runBin(['start', '--port', '0', '--data-dir', file], {}, 60_000);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `--data-dir (BRIDGE_DATA_DIR): ${file} is a file, not a directory`,
      );
      const below = await runBin(
        ['start', '--port', '0', '--data-dir', join(file, 'sub')],
        {},
        60_000,
      );
      expect(below.code).toBe(2);
      expect(below.stderr).toContain('has a file where a parent directory should be');
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  }, 90_000);
});
