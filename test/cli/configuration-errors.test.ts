import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliHere } from '../support/run-cli.ts';

// A data dir under a file: were start to go on past its configuration, it would fail at once.
const scratch = mkdtempSync(join(tmpdir(), 'configuration-errors-'));
writeFileSync(join(scratch, 'file'), '');
const UNOPENABLE_DATA_DIR = join(scratch, 'file', 'data');
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

const own = {
  CONNECTOR_BASE_URL: 'http://127.0.0.1:9',
  CONNECTOR_CLIENT_TOKEN: 'client',
  CONNECTOR_ACCESS_TOKEN: 'access',
};

/** A bad configuration of each command, and the name its refusal leads with. */
const cases: [args: string[], env: Record<string, string>, name: string][] = [
  [['start'], { POLL_INTERVAL: 'often' }, 'POLL_INTERVAL'],
  [['start'], { BRIDGE_MAX_BACKLOG: 'lots' }, 'BRIDGE_MAX_BACKLOG'],
  [['start'], { SIMULATOR_SIZE: 'huge' }, 'SIMULATOR_SIZE'],
  [['start'], { SIMULATOR_RATE_LIMIT: 'maybe' }, 'SIMULATOR_RATE_LIMIT'],
  [['start'], { CONNECTOR_ACCESS_TOKEN: 'access' }, 'CONNECTOR_BASE_URL'],
  [['start'], { POLL_HISTORY_START: '2999-01-01T00:00:00Z' }, 'POLL_HISTORY_START'],
  [['start'], { POLL_PRODUCT_IDS: 'not-a-uuid' }, 'POLL_PRODUCT_IDS[0]'],
  [['start'], { ...own, CONNECTOR_PORTFOLIO_SCOPE: 'team:x' }, 'CONNECTOR_PORTFOLIO_SCOPE[0]'],
  [['start', '--port', 'x'], {}, '--port'],
  [['start', '--poll-interval', 'often'], {}, '--poll-interval'],
  // backfill's --poll-interval is said as start's, whether or not a bridge answers.
  [['backfill', '--poll-interval', 'often'], {}, '--poll-interval'],
  [['backfill', '--entities', 'customer', '--poll-interval', '1ms'], {}, '--poll-interval'],
  // subscriptions ping --wait configures how long the command watches, as --poll-interval does.
  [['subscriptions', 'ping', 'sub_00000000000000000000000001', '--wait', 'soon'], {}, '--wait'],
  [['subscriptions', 'ping', 'sub_00000000000000000000000001', '--wait', '15'], {}, '--wait'],
  [['call', 'taxEnvironments/getAll'], { CONNECTOR_ACCESS_TOKEN: 'access' }, 'CONNECTOR_BASE_URL'],
  [
    ['call', 'taxEnvironments/getAll'],
    { CONNECTOR_BASE_URL: own.CONNECTOR_BASE_URL },
    'CONNECTOR_CLIENT_TOKEN',
  ],
  [
    ['call', 'taxEnvironments/getAll'],
    { ...own, CONNECTOR_PORTFOLIO_SCOPE: 'team:x' },
    'CONNECTOR_PORTFOLIO_SCOPE[0]',
  ],
  [['simulator', '--size', 'huge'], {}, '--size'],
  [['simulator', '--activity', '5000'], {}, '--activity'],
  [['streams', 'list'], { BRIDGE_PORT: 'x' }, 'BRIDGE_PORT'],
  [['streams', 'list'], { BRIDGE_ADMIN_TOKEN: 'a\u0001b' }, 'BRIDGE_ADMIN_TOKEN'],
  [['streams', 'list', '--api', 'ftp://bridge'], {}, '--api'],
  [['call', 'taxEnvironments/getAll', '--api', 'http://u:p@127.0.0.1:1'], {}, '--api'],
];

describe('a configuration the CLI refuses', () => {
  it.each(cases)(
    '%j with %j exits 2: "configuration is invalid: %s: …"',
    async (args, env, name) => {
      const result = await runCliHere(args, {
        BRIDGE_DATA_DIR: UNOPENABLE_DATA_DIR,
        CONNECTOR_BASE_URL: undefined,
        CONNECTOR_CLIENT_TOKEN: undefined,
        CONNECTOR_ACCESS_TOKEN: undefined,
        CONNECTOR_PORTFOLIO_SCOPE: undefined,
        BRIDGE_PORT: undefined,
        BRIDGE_ADMIN_TOKEN: undefined,
        ...env,
      });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.split('\n')[0]).toMatch(
        new RegExp(`^error: configuration is invalid: ${name.replace(/[[\]]/g, '\\$&')}: \\S`),
      );
    },
  );
});
