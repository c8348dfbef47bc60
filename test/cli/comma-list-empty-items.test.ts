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

/** A flag's list with an empty item, and the item the refusal names by its place. */
const flagCases: [args: string[], refusal: string][] = [
  [['subscriptions', 'add', '--url', url, '--events', 'customer.*,'], '--events: item 2'],
  [['subscriptions', 'add', '--url', url, '--events', 'a.*,,resource.updated'], '--events: item 2'],
  [['subscriptions', 'add', '--url', url, '--events', ',customer.*'], '--events: item 1'],
  [[...addConnection, '--entities', 'customer,,resource'], '--entities: item 2'],
  [[...addConnection, '--product-ids', `${PRODUCT},`], '--product-ids: item 2'],
  [[...addConnection, '--export-ids', ','], '--export-ids: item 1'],
  [[...addConnection, '--portfolio-scope', `chain:${CHAIN},`], '--portfolio-scope: item 2'],
  [['backfill', '--entities', 'customer,'], '--entities: item 2'],
  [['backfill', '--connection', 'main,,main'], '--connection: item 2'],
];

describe('an empty item in a list flag', () => {
  it.each(flagCases)('%j exits 2 naming the flag and the item', async (args, refusal) => {
    const result = await cli.run(args, { stdin: 'token' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe(`error: ${refusal}: ${EMPTY_ITEM_MESSAGE}`);
    expect(await cli.harness.store.listSubscriptions()).toEqual([]);
    expect((await cli.harness.connections.listPage()).connections).toEqual([]);
  });

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

/** A list variable with an empty item, and the item its refusal names. */
const variableCases: [args: string[], env: Record<string, string>, item: string][] = [
  [['start'], { POLL_ENTITIES: 'customer,,resource' }, 'POLL_ENTITIES[1]'],
  [['start'], { POLL_ENTITIES: 'customer,' }, 'POLL_ENTITIES[1]'],
  [['start'], { POLL_EXPORT_IDS: ',' }, 'POLL_EXPORT_IDS[0]'],
  [['start'], { POLL_PRODUCT_IDS: `${PRODUCT},` }, 'POLL_PRODUCT_IDS[1]'],
  [['start'], { BRIDGE_ALLOWED_HOSTS: 'localhost:4000,' }, 'BRIDGE_ALLOWED_HOSTS[1]'],
  [
    ['start'],
    { ...own, CONNECTOR_PORTFOLIO_SCOPE: `chain:${CHAIN},` },
    'CONNECTOR_PORTFOLIO_SCOPE[1]',
  ],
  [
    ['call', 'taxEnvironments/getAll'],
    { ...own, CONNECTOR_PORTFOLIO_SCOPE: `,chain:${CHAIN}` },
    'CONNECTOR_PORTFOLIO_SCOPE[0]',
  ],
];

describe('an empty item in a list variable', () => {
  it.each(variableCases)('%j with %j exits 2 naming the item', async (args, env, item) => {
    const result = await runCliHere(args, {
      BRIDGE_DATA_DIR: join(scratch, 'file', 'data'),
      CONNECTOR_BASE_URL: undefined,
      CONNECTOR_CLIENT_TOKEN: undefined,
      CONNECTOR_ACCESS_TOKEN: undefined,
      CONNECTOR_PORTFOLIO_SCOPE: undefined,
      ...env,
    });
    expect(result.code).toBe(2);
    // Every empty item is named (`,` has two); the first is this one.
    expect(result.stderr.split('\n')[0]).toMatch(
      `error: configuration is invalid: ${item}: ${EMPTY_ITEM_MESSAGE}`,
    );
  });
});
