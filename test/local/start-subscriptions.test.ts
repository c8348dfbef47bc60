import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonReporter } from '../../shared/local/reporter.ts';
import { startBridge } from '../../shared/local/runtime.ts';
import { startedFields } from '../../shared/local/start-banner.ts';
import { testLocalConfig } from '../support/local-config.ts';

describe('change-bridge start restarted on a data dir with a subscription', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('counts the stored subscriptions, for the banner and the started line', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'start-subscriptions-'));
    dirs.push(dataDir);
    const reporter = jsonReporter({ write: () => {}, now: () => Date.now() });
    // Hours between polls: nothing is read in this test, only what start finds in the data dir.
    const start = () =>
      startBridge(testLocalConfig(dataDir, 3_600_000), {
        env: { SIMULATOR_RATE_LIMIT: 'off' },
        reporter,
      });
    const first = await start();
    try {
      expect(first.subscriptions).toBe(0);
      await first.webhooks.createSubscription({
        url: 'http://127.0.0.1:9000/hook',
        events: ['customer.*'],
      });
    } finally {
      await first.stop();
    }
    const again = await start();
    try {
      expect(again.subscriptions).toBe(1);
      const fields = startedFields({
        ...again,
        connectorUrl: undefined,
        streams: again.streams.length,
        entityTypes: [],
        dataDir,
        pollIntervalMs: 3_600_000,
      });
      expect(fields.subscriptions).toBe(1);
    } finally {
      await again.stop();
    }
  }, 30_000);
});
