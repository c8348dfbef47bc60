import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBin } from '../support/run-bin.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** `start` on a Portfolio Access Token with this scope and these entities. */
async function startWithPortfolio(scope: string, entities: string) {
  const dir = await mkdtemp(join(tmpdir(), 'start-scope-'));
  dirs.push(dir);
  return runBin(['start', '--port', '0'], {
    BRIDGE_DATA_DIR: dir,
    // Nothing listens there: the start must stop before any request.
    CONNECTOR_BASE_URL: 'http://127.0.0.1:9',
    CONNECTOR_CLIENT_TOKEN: 'client',
    CONNECTOR_ACCESS_TOKEN: 'portfolio',
    CONNECTOR_PORTFOLIO_SCOPE: scope,
    POLL_ENTITIES: entities,
  });
}

// Concurrent: each start has a data dir of its own and mostly waits for its process to load.
describe.concurrent('change-bridge start with a Portfolio Access Token', () => {
  it('refuses an enterprise-only scope while customers are polled (they need a chain), exit 2 naming the variable', async () => {
    const result = await startWithPortfolio(
      'enterprise:8f7b1c84-61b5-4b52-9c29-6a4d3c0e1f11',
      'resource,customer',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('CONNECTOR_PORTFOLIO_SCOPE: customer needs a chain');
  });

  it('refuses POLL_ENTITIES naming an entity a Portfolio Access Token cannot read, exit 2 naming the variable', async () => {
    const result = await startWithPortfolio(
      'chain:4d0201db-36f6-4ad5-8b0b-1a7fa9e8a5c2',
      'resource,taxEnvironment',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('POLL_ENTITIES: a Portfolio Access Token');
    expect(result.stderr).toContain('cannot read taxEnvironment');
  });
});
