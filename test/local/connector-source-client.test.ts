import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLIENT_NAME } from '../../shared/connector/connector-config.ts';
import { openConnectorSource } from '../../shared/local/connector-source.ts';
import { readLocalConfig } from '../../shared/local/local-config.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** The connection `start` polls its built-in simulator with, under `env`. */
async function simulatorConnection(env: Record<string, string>) {
  const dataDir = await mkdtemp(join(tmpdir(), 'connector-source-'));
  dirs.push(dataDir);
  const source = await openConnectorSource(env, {
    activityPerSecond: 0,
    dataDir,
    random: () => 0.5,
  });
  await source.close();
  return source.connection;
}

describe('CONNECTOR_CLIENT with the built-in simulator', () => {
  it('is the Client field of the simulator connection, as with CONNECTOR_BASE_URL', async () => {
    // Before, the simulator connection always sent the default name.
    expect((await simulatorConnection({})).client).toBe(DEFAULT_CLIENT_NAME);
    expect((await simulatorConnection({ CONNECTOR_CLIENT: 'my-integration 2.0' })).client).toBe(
      'my-integration 2.0',
    );
  });

  it('is refused empty, as start refuses it with CONNECTOR_BASE_URL', () => {
    expect(() => readLocalConfig({ CONNECTOR_CLIENT: '' }, {})).toThrow(/CONNECTOR_CLIENT: /);
  });
});
