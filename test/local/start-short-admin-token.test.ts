import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonReporter } from '../../shared/local/reporter.ts';
import { startBridge } from '../../shared/local/runtime.ts';
import { testLocalConfig } from '../support/local-config.ts';

// BRIDGE_ADMIN_TOKEN=x was taken without a word. design.md sets no minimum length, so a short
// token is still taken (refusing it would stop a start that worked), with a warning.

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** The warnings `start` reports while it starts with `adminToken`, stopped at once. */
async function startWarnings(adminToken: string | undefined): Promise<string[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cb-admin-token-'));
  dirs.push(dataDir);
  const lines: string[] = [];
  const bridge = await startBridge(
    { ...testLocalConfig(dataDir, 60_000), adminToken },
    {
      // Nothing listens there: the polls fail, the start does not.
      env: {
        CONNECTOR_BASE_URL: 'http://127.0.0.1:9',
        CONNECTOR_CLIENT_TOKEN: 'client',
        CONNECTOR_ACCESS_TOKEN: 'access',
        POLL_ENTITIES: 'customer',
      },
      reporter: jsonReporter({ write: (line) => lines.push(line), now: () => Date.now() }),
    },
  );
  await bridge.stop();
  return lines
    .map((line) => JSON.parse(line) as { level: string; message: string })
    .filter((line) => line.level === 'warn')
    .map((line) => line.message);
}

describe('change-bridge start with a short BRIDGE_ADMIN_TOKEN', () => {
  it('warns once, naming the variable and the length recommended, never the token', async () => {
    const token = 'Qz7#kW9';
    const warnings = await startWarnings(token);
    expect(warnings).toEqual([
      expect.stringMatching(/^BRIDGE_ADMIN_TOKEN is shorter than 16 characters: /),
    ]);
    expect(warnings[0]).not.toContain(token);
    expect(warnings[0]).not.toMatch(/\b7 characters/);
  });

  it('says nothing of a token of 16 characters or more, or of none', async () => {
    expect(await startWarnings('0123456789abcdef')).toEqual([]);
    expect(await startWarnings(undefined)).toEqual([]);
  });
});
