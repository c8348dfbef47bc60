import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_ITEM_MESSAGE } from '../../shared/comma-list.ts';
import { startCliHarness } from '../admin/support/cli.ts';
import { runCliHere } from '../support/run-cli.ts';

// A doubled comma (a template that joined an empty value) or one at either end was dropped:
// `--events 'customer.*,'` and `POLL_ENTITIES=a,,b` ran with a list other than the one written.

let cli: Awaited<ReturnType<typeof startCliHarness>>;
beforeAll(async () => {
  cli = await startCliHarness();
});
// A data dir under a file: were start to go on past its configuration, it would fail at once.
const scratch = mkdtempSync(join(tmpdir(), 'comma-list-'));
writeFileSync(join(scratch, 'file'), '');
afterAll(async () => {
  await cli?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const CHAIN = '4d0201db-6bb9-4c9d-8bd0-3a1a0e7d0b5f';
const PRODUCT = '0cf29cb4-3568-44d9-a1b8-893da55dba09';
const url = 'http://127.0.0.1:8/hook';
const addConnection = ['connections', 'add', '--id', 'h1', '--access-token-stdin'];

/** A flag's list with empty items, the flag, and the places of the items its refusal names. */
const flagCases: [args: string[], flag: string, places: number[]][] = [
  [['subscriptions', 'add', '--url', url, '--events', 'customer.*,'], '--events', [2]],
  [['subscriptions', 'add', '--url', url, '--events', 'a.*,,resource.updated'], '--events', [2]],
  [['subscriptions', 'add', '--url', url, '--events', ',customer.*'], '--events', [1]],
  [['subscriptions', 'add', '--url', url, '--events', ',customer.*,,'], '--events', [1, 3, 4]],
  [[...addConnection, '--entities', 'customer,,resource'], '--entities', [2]],
  [[...addConnection, '--entities', 'customer,,,resource'], '--entities', [2, 3]],
  [[...addConnection, '--product-ids', `${PRODUCT},`], '--product-ids', [2]],
  [[...addConnection, '--export-ids', ','], '--export-ids', [1, 2]],
  [[...addConnection, '--portfolio-scope', `chain:${CHAIN},`], '--portfolio-scope', [2]],
  [[...addConnection, '--portfolio-scope', `,chain:${CHAIN},`], '--portfolio-scope', [1, 3]],
  [['backfill', '--entities', 'customer,'], '--entities', [2]],
  [['backfill', '--connection', 'main,,main'], '--connection', [2]],
  // An id that names no connection, before the empty item, is not looked up: the typo is told.
  [['backfill', '--connection', 'nope,,x'], '--connection', [2]],
  [['backfill', '--connection', 'nope,,x,'], '--connection', [2, 4]],
];

describe('an empty item in a list flag', () => {
  it.each(flagCases)(
    '%j exits 2 naming %s and every empty item, in order',
    async (args, flag, places) => {
      const result = await cli.run(args, { stdin: 'token' });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const items = places.map((place) => `item ${place}: ${EMPTY_ITEM_MESSAGE}`).join('; ');
      expect(result.stderr.split('\n')[0]).toBe(`error: ${flag}: ${items}`);
      expect(await cli.harness.store.listSubscriptions()).toEqual([]);
      expect((await cli.harness.connections.listPage()).connections).toEqual([]);
      expect((await cli.harness.backfills.list({ limit: 10 })).jobs).toEqual([]);
    },
  );

  it('is refused by the admin API too, 400 naming the item', async () => {
    const response = await fetch(`${cli.server.url}/subscriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url, events: 'customer.*,' }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ field: 'events[1]' });
  });

  it('a blank list stays what it was: no item at all', async () => {
    const result = await cli.run(['subscriptions', 'add', '--url', url, '--events', ' ']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--events: give at least one pattern');
  });
});

const own = {
  CONNECTOR_BASE_URL: 'http://127.0.0.1:9',
  CONNECTOR_CLIENT_TOKEN: 'client',
  CONNECTOR_ACCESS_TOKEN: 'access',
};

/** A list variable with empty items, and the items its refusal names, in order. */
const variableCases: [args: string[], env: Record<string, string>, items: string[]][] = [
  [['start'], { POLL_ENTITIES: 'customer,,resource' }, ['POLL_ENTITIES[1]']],
  [['start'], { POLL_ENTITIES: 'customer,' }, ['POLL_ENTITIES[1]']],
  [
    ['start'],
    { POLL_ENTITIES: ',customer,,' },
    ['POLL_ENTITIES[0]', 'POLL_ENTITIES[2]', 'POLL_ENTITIES[3]'],
  ],
  [['start'], { POLL_EXPORT_IDS: ',' }, ['POLL_EXPORT_IDS[0]', 'POLL_EXPORT_IDS[1]']],
  [['start'], { POLL_PRODUCT_IDS: `${PRODUCT},` }, ['POLL_PRODUCT_IDS[1]']],
  [['start'], { BRIDGE_ALLOWED_HOSTS: 'localhost:4000,' }, ['BRIDGE_ALLOWED_HOSTS[1]']],
  [
    ['start'],
    { ...own, CONNECTOR_PORTFOLIO_SCOPE: `chain:${CHAIN},` },
    ['CONNECTOR_PORTFOLIO_SCOPE[1]'],
  ],
  [
    ['call', 'taxEnvironments/getAll'],
    { ...own, CONNECTOR_PORTFOLIO_SCOPE: `,chain:${CHAIN},` },
    ['CONNECTOR_PORTFOLIO_SCOPE[0]', 'CONNECTOR_PORTFOLIO_SCOPE[2]'],
  ],
];

describe('an empty item in a list variable', () => {
  it.each(variableCases)(
    '%j with %j exits 2 naming every empty item, in order',
    async (args, env, items) => {
      const result = await runCliHere(args, {
        BRIDGE_DATA_DIR: join(scratch, 'file', 'data'),
        CONNECTOR_BASE_URL: undefined,
        CONNECTOR_CLIENT_TOKEN: undefined,
        CONNECTOR_ACCESS_TOKEN: undefined,
        CONNECTOR_PORTFOLIO_SCOPE: undefined,
        ...env,
      });
      expect(result.code).toBe(2);
      const named = items.map((item) => `${item}: ${EMPTY_ITEM_MESSAGE}`).join('; ');
      expect(result.stderr.split('\n')[0]).toBe(`error: configuration is invalid: ${named}`);
    },
  );
});
