import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonReporter } from '../../shared/local/reporter.ts';
import { startBridge } from '../../shared/local/runtime.ts';
import { connectorEnvOf } from '../../shared/simulator/connector-env.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { listeningAddresses } from '../support/listening-ports.ts';
import { testLocalConfig } from '../support/local-config.ts';

// What another user of the machine (or a page of the operator's browser, port by port) can
// connect to. The local store holds every subscription's signing secret and the queue every
// pending delivery: reached in process, they need no port of their own.
describe.runIf(process.platform === 'linux')('the sockets change-bridge start listens on', () => {
  let sim: RunningSimulator;
  const dirs: string[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ seed: 8, customers: 5, rateLimit: false });
  });
  afterAll(async () => {
    await sim?.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  for (const storeThread of [false, true]) {
    it(`are its admin API alone, the store and the queue none (BRIDGE_STORE_THREAD=${storeThread})`, async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'cb-sockets-'));
      dirs.push(dataDir);
      const before = new Set(listeningAddresses());
      const start = () =>
        startBridge(
          { ...testLocalConfig(dataDir, 60_000), storeThread },
          {
            env: { ...connectorEnvOf(sim), POLL_ENTITIES: 'customer', POLL_HISTORY_START: '1d' },
            reporter: jsonReporter({ write: () => undefined, now: () => Date.now() }),
          },
        );
      const bridge = await start();
      try {
        const opened = listeningAddresses().filter((address) => !before.has(address));
        expect(opened).toEqual([new URL(bridge.adminUrl).host]);
        // The store still answers the bridge itself (the queue did at start: its lanes' depths).
        const created = await fetch(`${bridge.adminUrl}/subscriptions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ url: 'http://127.0.0.1:8080/hook' }),
        });
        expect(`${created.status} ${await created.text()}`).toMatch(/^201/);
      } finally {
        await bridge.stop();
      }
      // Stopping closed (and flushed) the store and the queue: the next run opens them again.
      const again = await start();
      try {
        const listed = await fetch(`${again.adminUrl}/subscriptions`);
        expect(JSON.stringify(await listed.json())).toContain('http://127.0.0.1:8080/hook');
      } finally {
        await again.stop();
      }
    }, 30_000);
  }
});
