import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/main.ts';
import { startCliHarness } from '../admin/support/cli.ts';

/** An id of `prefix` shaped as the bridge makes them (26 Crockford base32 characters). */
const wellFormed = (prefix: string) => `${prefix}${'0123456789ABCDEFGHJKMNPQRS'}`;

let cli: Awaited<ReturnType<typeof startCliHarness>>;
/** A server counting every request it is sent: a refusal before anything is sent leaves it at 0. */
let counting: Server;
let requests = 0;
beforeAll(async () => {
  cli = await startCliHarness();
  counting = createServer((_request, response) => {
    requests++;
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: 'not found' }));
  });
  await new Promise<void>((resolve) => counting.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  counting?.closeAllConnections();
  await new Promise((resolve) => counting?.close(resolve));
  await cli?.close();
});

/** Runs the CLI against the counting server: its exit code, stderr, and the requests it sent. */
async function runCounted(args: readonly string[]) {
  const before = requests;
  const err: string[] = [];
  const out: string[] = [];
  const { port } = counting.address() as AddressInfo;
  const code = await runCli([...args, '--api', `http://127.0.0.1:${port}`], {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n'), sent: requests - before };
}

const EVENT_ID_TAKES = 'must be an event id: evt_ and 26 characters, as events list prints it';
const SUBSCRIPTION_ID_TAKES =
  'must be a subscription id: sub_ and 26 characters, as subscriptions add and list print it';
const BACKFILL_ID_TAKES =
  'must be a backfill id: bf_ and 26 characters, as backfill and backfill list print it';

describe('an id not shaped as the bridge makes them', () => {
  it.each([
    'a b',
    'bf_1',
    wellFormed('evt_'),
    wellFormed('bf_').toLowerCase(),
    `${wellFormed('bf_')}0`,
  ])('backfill --follow %j exits 2 naming --follow, sending nothing', async (id) => {
    const result = await runCounted(['backfill', '--follow', id]);
    expect(result).toMatchObject({ code: 2, stdout: '', sent: 0 });
    expect(result.stderr.split('\n')[0]).toBe(`error: --follow: ${BACKFILL_ID_TAKES}`);
  });

  it('backfill --follow of a well-formed id the bridge does not hold still exits 1', async () => {
    const id = wellFormed('bf_');
    const result = await cli.run(['backfill', '--follow', id]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(id);
    expect(result.stderr).not.toContain('--follow:');
  });
});

describe('a filter or target id not shaped as the bridge makes them', () => {
  const event = wellFormed('evt_');
  it.each([
    [['deliveries', 'list', '--event', 'bad id'], `--event: ${EVENT_ID_TAKES}`],
    [['deliveries', 'list', '--event', 'evt_1', '--json'], `--event: ${EVENT_ID_TAKES}`],
    [['deliveries', 'list', '--event', wellFormed('sub_')], `--event: ${EVENT_ID_TAKES}`],
    [
      ['deliveries', 'list', '--subscription', 'bad id'],
      `--subscription: ${SUBSCRIPTION_ID_TAKES}`,
    ],
    [['deliveries', 'list', '--subscription', 'sub_1'], `--subscription: ${SUBSCRIPTION_ID_TAKES}`],
    [
      ['deliveries', 'redeliver', '--subscription', 'sub_1'],
      `--subscription: ${SUBSCRIPTION_ID_TAKES}`,
    ],
    [
      ['events', 'replay', event, '--subscription', 'bad id'],
      `--subscription: ${SUBSCRIPTION_ID_TAKES}`,
    ],
    [['subscriptions', 'remove', 'bad id'], `id: ${SUBSCRIPTION_ID_TAKES}`],
    [['subscriptions', 'enable', 'sub_1'], `id: ${SUBSCRIPTION_ID_TAKES}`],
    [['subscriptions', 'disable', wellFormed('evt_')], `id: ${SUBSCRIPTION_ID_TAKES}`],
    [['subscriptions', 'rotate-secret', 'sub_1'], `id: ${SUBSCRIPTION_ID_TAKES}`],
    [['subscriptions', 'ping', 'bad id'], `id: ${SUBSCRIPTION_ID_TAKES}`],
  ])('%j exits 2 naming the flag or argument, sending nothing', async (args, message) => {
    const result = await runCounted(args);
    expect(result).toMatchObject({ code: 2, stdout: '', sent: 0 });
    expect(result.stderr.split('\n')[0]).toBe(`error: ${message}`);
  });

  it.each<[string[], string]>([
    [['deliveries', 'list', '--event', event], `event ${event} is not stored`],
    [
      ['deliveries', 'list', '--subscription', wellFormed('sub_')],
      `subscription ${wellFormed('sub_')} does not exist`,
    ],
    [
      ['deliveries', 'redeliver', '--subscription', wellFormed('sub_')],
      `subscription ${wellFormed('sub_')} does not exist`,
    ],
    ...['remove', 'enable', 'disable', 'rotate-secret', 'ping'].map(
      (command): [string[], string] => [
        ['subscriptions', command, wellFormed('sub_')],
        `subscription ${wellFormed('sub_')} does not exist`,
      ],
    ),
  ])('%j of a well-formed id the bridge does not hold still exits 1', async (args, message) => {
    const result = await cli.run(args);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
  });
});
