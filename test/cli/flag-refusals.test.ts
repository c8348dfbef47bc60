import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EntityTypeSchema } from '../../shared/changes/entity-types.ts';
import { EMPTY_ITEM_MESSAGE } from '../../shared/comma-list.ts';
import { startCliHarness } from '../admin/support/cli.ts';

let cli: Awaited<ReturnType<typeof startCliHarness>>;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli?.close();
});

/** zod's own wording, which says nothing of what a flag takes. */
const ZOD_WORDING = /Too small|Too big|Invalid (option|input|string)|expected one of|received \w+/;

const url = 'http://127.0.0.1:8/hook';
const addConnection = ['connections', 'add', '--id', 'h1', '--access-token-stdin'];
/** What an entity type flag takes: the catalogue's entity types. */
const ENTITY_TYPES = `one of ${EntityTypeSchema.options.slice(0, -1).join(', ')} or ${EntityTypeSchema.options.at(-1)}`;

/** What the admin API is sent for the same input: `path` with its query, and a JSON body. */
interface ApiRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
  /** The field its 400 answer names. */
  field: string;
}

const token = { accessToken: 'token' };

/** A bad value of each flag, the CLI's whole message, and the same input sent to the admin API. */
const cases: [args: string[], message: string, api: ApiRequest][] = [
  [
    ['subscriptions', 'add', '--url', url, '--events', ''],
    '--events: give at least one pattern such as customer.* or resource.updated',
    { method: 'POST', path: '/subscriptions', body: { url, events: '' }, field: 'events' },
  ],
  [
    ['subscriptions', 'add', '--url', url, '--events', 'customer.*,nope'],
    '--events: nope: must be an event type such as customer.updated, customer.* or *, of the catalogue (README, Events): it matches no event type',
    {
      method: 'POST',
      path: '/subscriptions',
      body: { url, events: 'customer.*,nope' },
      field: 'events[1]',
    },
  ],
  [
    ['subscriptions', 'add', '--url', ''],
    '--url: must not be empty',
    { method: 'POST', path: '/subscriptions', body: { url: '' }, field: 'url' },
  ],
  [
    ['subscriptions', 'add', '--url', 'ftp://x'],
    '--url: must use http or https',
    { method: 'POST', path: '/subscriptions', body: { url: 'ftp://x' }, field: 'url' },
  ],
  [
    ['events', 'list', '--type', 'nope'],
    '--type: must be an event type such as customer.updated (README, Events)',
    { method: 'GET', path: '/events?type=nope', field: 'type' },
  ],
  [
    ['events', 'list', '--limit', 'lots'],
    '--limit: must be a whole number from 1 to 1000',
    { method: 'GET', path: '/events?limit=lots', field: 'limit' },
  ],
  [
    ['events', 'list', '--cursor', 'nonsense'],
    '--cursor: must be a nextCursor a previous page gave',
    { method: 'GET', path: '/events?cursor=nonsense', field: 'cursor' },
  ],
  [
    ['events', 'replay', 'evt_00000000000000000000000001', '--subscription', ''],
    '--subscription: must not be empty',
    {
      method: 'POST',
      path: '/events/evt_00000000000000000000000001/replay',
      body: { subscriptionId: '' },
      field: 'subscriptionId',
    },
  ],
  [
    ['deliveries', 'list', '--subscription', ''],
    '--subscription: must not be empty',
    { method: 'GET', path: '/deliveries?subscription=', field: 'subscription' },
  ],
  [
    ['deliveries', 'list', '--limit', '0'],
    '--limit: must be a whole number from 1 to 1000',
    { method: 'GET', path: '/deliveries?limit=0', field: 'limit' },
  ],
  [
    ['streams', 'list', '--connection', 'a b'],
    '--connection: must be 1 to 64 letters, digits, _ or -',
    { method: 'GET', path: '/streams?connectionId=a+b', field: 'connectionId' },
  ],
  [
    ['connections', 'add', '--id', 'no spaces', '--access-token-stdin'],
    '--id: must be 1 to 64 letters, digits, _ or -',
    { method: 'POST', path: '/connections', body: { id: 'no spaces', ...token }, field: 'id' },
  ],
  [
    [...addConnection, '--initial-sync', 'foo'],
    '--initial-sync: must be baseline or emit',
    {
      method: 'POST',
      path: '/connections',
      body: { id: 'h1', initialSync: 'foo', ...token },
      field: 'initialSync',
    },
  ],
  [
    [...addConnection, '--entities', 'customer,guest'],
    `--entities: guest: must be ${ENTITY_TYPES}`,
    {
      method: 'POST',
      path: '/connections',
      body: { id: 'h1', entities: 'customer,guest', ...token },
      field: 'entities[1]',
    },
  ],
  [
    [...addConnection, '--entities', ''],
    '--entities: must list at least one value',
    {
      method: 'POST',
      path: '/connections',
      body: { id: 'h1', entities: '', ...token },
      field: 'entities',
    },
  ],
  [
    [...addConnection, '--entities', ','],
    `--entities: item 1: ${EMPTY_ITEM_MESSAGE}; item 2: ${EMPTY_ITEM_MESSAGE}`,
    {
      method: 'POST',
      path: '/connections',
      body: { id: 'h1', entities: ',', ...token },
      field: 'entities[0]',
    },
  ],
  [
    [...addConnection, '--interval', 'soon'],
    '--interval: is not a duration (e.g. 500ms, 5s, 1m, 2h)',
    {
      method: 'POST',
      path: '/connections',
      body: { id: 'h1', interval: 'soon', ...token },
      field: 'interval',
    },
  ],
  [
    [...addConnection, '--product-ids', 'nope'],
    '--product-ids: nope: the product id must be a uuid',
    {
      method: 'POST',
      path: '/connections',
      body: { id: 'h1', productIds: ['nope'], ...token },
      field: 'productIds[0]',
    },
  ],
  [
    [...addConnection, '--export-ids', 'nope'],
    '--export-ids: nope: must be an export id (uuid)',
    {
      method: 'POST',
      path: '/connections',
      body: { id: 'h1', exportIds: ['nope'], ...token },
      field: 'exportIds[0]',
    },
  ],
  [
    ['backfill', '--entities', 'customer,guest'],
    `--entities: guest: must be ${ENTITY_TYPES}`,
    {
      method: 'POST',
      path: '/backfill',
      body: { entities: 'customer,guest' },
      field: 'entities[1]',
    },
  ],
  [
    ['backfill', '--connection', ' '],
    '--connection: must list at least one value',
    { method: 'POST', path: '/backfill', body: { connections: ' ' }, field: 'connections' },
  ],
  [
    ['backfill', '--connection', ','],
    `--connection: item 1: ${EMPTY_ITEM_MESSAGE}; item 2: ${EMPTY_ITEM_MESSAGE}`,
    { method: 'POST', path: '/backfill', body: { connections: ',' }, field: 'connections[0]' },
  ],
  [
    ['backfill', '--connection', 'a b'],
    '--connection: a b: must be 1 to 64 letters, digits, _ or -',
    { method: 'POST', path: '/backfill', body: { connections: 'a b' }, field: 'connections[0]' },
  ],
];

describe('a bad value of a flag', () => {
  it.each(cases)('%j exits 2 naming the flag once, in plain words', async (args, message) => {
    const result = await cli.run(args, { stdin: 'token' });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(`error: ${message}`);
    expect(result.stderr).not.toMatch(ZOD_WORDING);
  });

  it.each(cases)('%j is answered 400 by the admin API naming the field', async (_a, _m, api) => {
    const response = await fetch(`${cli.server.url}${api.path}`, {
      method: api.method,
      headers: { 'content-type': 'application/json' },
      ...(api.body === undefined ? {} : { body: JSON.stringify(api.body) }),
    });
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { field?: string; error?: string };
    expect(answer).toMatchObject({ field: api.field });
    expect(answer.error).toContain(api.field);
  });

  it('--portfolio-scope names the flag once, then each entry it refuses', async () => {
    const result = await cli.run([...addConnection, '--portfolio-scope', 'x:1,bogus'], {
      stdin: 'token',
    });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      'error: --portfolio-scope: x:1: needs the chain:<uuid> or enterprise:<uuid> prefix; bogus: needs the chain:<uuid> or enterprise:<uuid> prefix',
    );
  });

  it('--poll-interval of backfill names the flag as start does', async () => {
    const result = await cli.run(['backfill', '--poll-interval', '1ms']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      'error: configuration is invalid: --poll-interval: must be at least 100ms (a bare number is milliseconds)',
    );
  });

  it('--data of call names the JSON field, in plain words', async () => {
    const result = await cli.run(
      [
        'call',
        'customers/getAll',
        '--data',
        '{"Limitation":{"Count":0},"Extent":{"Customers":"yes"}}',
      ],
      { api: false },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Limitation.Count: must be at least 1');
    expect(result.stderr).toContain('Extent.Customers: must be true or false');
    expect(result.stderr).not.toMatch(ZOD_WORDING);
  });
});
