import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonReporter } from '../../shared/local/reporter.ts';
import { startBridge } from '../../shared/local/runtime.ts';
import { testLocalConfig } from '../support/local-config.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** What `start` reports while it starts on a connector of one's own with `env`, stopped at once. */
async function startReports(env: Record<string, string>) {
  const dataDir = await mkdtemp(join(tmpdir(), 'cb-untracked-'));
  dirs.push(dataDir);
  const lines: string[] = [];
  const bridge = await startBridge(testLocalConfig(dataDir, 60_000), {
    env: {
      // Nothing listens there: the polls fail, the start does not.
      CONNECTOR_BASE_URL: 'http://127.0.0.1:9',
      CONNECTOR_CLIENT_TOKEN: 'client',
      CONNECTOR_ACCESS_TOKEN: 'access',
      ...env,
    },
    reporter: jsonReporter({ write: (line) => lines.push(line), now: () => Date.now() }),
  });
  await bridge.stop();
  return lines.map((line) => JSON.parse(line) as { level: string; message: string });
}

describe('change-bridge start with export or productPrice and nothing to follow', () => {
  it('warns that the export and productPrice streams poll nothing without POLL_EXPORT_IDS and POLL_PRODUCT_IDS', async () => {
    const warnings = (await startReports({ POLL_ENTITIES: 'export,productPrice' })).filter(
      (line) => line.level === 'warn',
    );
    expect(warnings.map((line) => line.message)).toEqual([
      expect.stringMatching(/^export is polled .*POLL_EXPORT_IDS names no export/),
      expect.stringMatching(/^productPrice is polled .*POLL_PRODUCT_IDS names no product/),
    ]);
  });

  it('says nothing of them when POLL_EXPORT_IDS and POLL_PRODUCT_IDS name what to follow', async () => {
    const reports = await startReports({
      POLL_ENTITIES: 'export,productPrice',
      POLL_EXPORT_IDS: '5b3c1a52-8d0f-4a43-9a55-0e6c2b1f4d21',
      POLL_PRODUCT_IDS: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f@Europe/Prague',
    });
    expect(reports.filter((line) => line.level === 'warn')).toEqual([]);
  });
});
