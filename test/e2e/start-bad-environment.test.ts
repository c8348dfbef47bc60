import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../support/run-bin.ts';
import { runCliHere } from '../support/run-cli.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Nothing listens there: a start refused for its configuration makes no request. */
const CONNECTOR = {
  CONNECTOR_BASE_URL: 'http://127.0.0.1:9',
  CONNECTOR_CLIENT_TOKEN: 'client',
  CONNECTOR_ACCESS_TOKEN: 'access',
};

/**
 * A data dir under a file, for the starts run in this process: were one to go on past its
 * configuration, it would stop at the data dir with a message of its own, starting nothing.
 */
let unopenableDataDir = '';
beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'start-env-'));
  dirs.push(dir);
  await writeFile(join(dir, 'file'), '');
  unopenableDataDir = join(dir, 'file', 'data');
});

describe('change-bridge start with a bad variable', () => {
  it('exits 2 naming the variable, as it does for every configuration error', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ ...CONNECTOR, POLL_INTERVAL: '5' }, 'POLL_INTERVAL: must be at least 100ms'],
      [{ ...CONNECTOR, BRIDGE_MAX_BACKLOG: 'abc' }, 'BRIDGE_MAX_BACKLOG: must be a positive'],
      [
        { ...CONNECTOR, POLL_ENTITIES: 'productPrice', POLL_PRODUCT_IDS: 'not-a-product' },
        'POLL_PRODUCT_IDS[0]: the product id must be a uuid',
      ],
      [{ ...CONNECTOR, POLL_ENTITIES: 'export', POLL_EXPORT_IDS: 'x' }, 'POLL_EXPORT_IDS[0]'],
      // Before, a future history start was taken: every first sync waited for it, silently.
      [
        { ...CONNECTOR, POLL_HISTORY_START: '2999-01-01' },
        'POLL_HISTORY_START: must not be in the future',
      ],
      // The built-in simulator's own variable (no CONNECTOR_BASE_URL).
      [{ SIMULATOR_SIZE: 'huge' }, 'SIMULATOR_SIZE: must be one of'],
      // A connector variable the simulator does not read is checked all the same.
      [{ CONNECTOR_RATE_LIMIT: 'maybe' }, 'CONNECTOR_RATE_LIMIT: must be on or off'],
    ];
    // The executable itself for the first (its exit code and stderr); the configuration is
    // read by the same sources for the others, run in this process (a node and a CLI load each
    // cost about a second of CPU).
    const [executable, ...others] = cases;
    const dataDir = await mkdtemp(join(tmpdir(), 'start-env-'));
    dirs.push(dataDir);
    const results = [
      await runBin(['start', '--port', '0'], { BRIDGE_DATA_DIR: dataDir, ...executable![0] }),
    ];
    for (const [variables] of others)
      results.push(
        await runCliHere(['start', '--port', '0'], {
          BRIDGE_DATA_DIR: unopenableDataDir,
          ...variables,
        }),
      );
    for (const [index, [variables, message]] of cases.entries()) {
      const result = results[index]!;
      expect({ variables, code: result.code }).toEqual({ variables, code: 2 });
      expect(result.stderr).toContain(message);
    }
  });

  it.each([
    ['POLL_INTERVAL', 'abc', 'is not a duration'],
    ['POLL_OVERLAP', '-1s', 'is not a duration'],
    ['INITIAL_SYNC', 'foo', 'must be baseline or emit'],
    ['POLL_ENTITIES', 'nope', 'must be one of customer, resource,'],
    ['BRIDGE_PORT', 'x', 'must be a port number'],
    ['WEBHOOK_ALLOW_PRIVATE', 'maybe', 'must be one of 0, 1, true or false'],
    ['CONNECTOR_BASE_URL', 'notaurl', 'must be an http or https URL'],
    // Before, taken: start ran, and every poll failed with "Invalid URL protocol".
    ['CONNECTOR_BASE_URL', 'ftp://127.0.0.1:4010', 'must be an http or https URL'],
    ['CONNECTOR_BASE_URL', 'mailto:ops@example.com', 'must be an http or https URL'],
    ['CONNECTOR_RATE_LIMIT', 'maybe', 'must be on or off'],
  ])('exits 2 for %s=%s, saying in plain words what it takes', async (name, value, message) => {
    // Before, zod's own words: `INITIAL_SYNC: Invalid option: expected one of "baseline"|"emit"`.
    const connector = name === 'CONNECTOR_BASE_URL' ? CONNECTOR : {};
    const result = await runCliHere(['start'], {
      BRIDGE_DATA_DIR: unopenableDataDir,
      ...connector,
      [name]: value,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`${name}(\\[0\\])?: ${message}`));
    expect(result.stderr).not.toMatch(
      /Too small|Too big|Invalid (option|input|URL)|expected one of/,
    );
  });

  it('exits 2 naming both variables when BRIDGE_ALLOWED_HOSTS names another host than loopback without BRIDGE_ADMIN_TOKEN', async () => {
    // A proxy's clients would reach the admin API under that name without authentication.
    const result = await runCliHere(['start', '--port', '0'], {
      BRIDGE_DATA_DIR: unopenableDataDir,
      ...CONNECTOR,
      BRIDGE_ALLOWED_HOSTS: 'localhost:4000,bridge.internal:4000',
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      'BRIDGE_ADMIN_TOKEN: required when BRIDGE_ALLOWED_HOSTS names a host other than loopback (entry 2 of 2)',
    );
  });

  it('exits 2 naming both when --demo-receiver meets WEBHOOK_ALLOW_PRIVATE=false, before opening anything', async () => {
    // Before, the receiver started, its subscription was refused ("url: must use https"), and
    // the process printed the error but never exited, held open by what it had started.
    const dataDir = await mkdtemp(join(tmpdir(), 'start-env-'));
    dirs.push(dataDir);
    const result = await runBin(
      ['start', '--port', '0', '--demo-receiver'],
      { BRIDGE_DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE: 'false' },
      15_000,
    );
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('--demo-receiver: ');
    expect(result.stderr).toContain('WEBHOOK_ALLOW_PRIVATE=false');
    expect(result.stdout).not.toContain('change-bridge is running');
  });
});
