import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminServer } from '../../shared/admin/node-server.ts';
import { PING_WAIT_TAKES } from '../../shared/cli/admin/subscriptions.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { startCliHarness } from '../admin/support/cli.ts';
import { runBin } from '../support/run-bin.ts';

let cli: Awaited<ReturnType<typeof startCliHarness>>;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli?.close();
});

describe('change-bridge subscriptions', () => {
  it('add prints the id and a whsec_ secret, exit 0', async () => {
    const result = await cli.run(['subscriptions', 'add', '--url', 'http://127.0.0.1:9000/hook']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Created subscription sub_\w+/);
    expect(result.stdout).toMatch(/secret {2}whsec_[A-Za-z0-9+/=]+/);
    const id = /sub_\w+/.exec(result.stdout)![0];
    expect(await cli.harness.store.getSubscription(id)).toMatchObject({ events: ['*'] });
  });

  /** `subscriptions add --json` of a local hook, with one `--events` per list given. */
  const addJson = (...eventLists: string[]) =>
    cli.run([
      'subscriptions',
      'add',
      '--url',
      'http://127.0.0.1:9000/hook',
      ...eventLists.flatMap((list) => ['--events', list]),
      '--json',
    ]);

  it('add --json prints exactly {"id","url","events","secret"} with the events split', async () => {
    const result = await addJson('customer.*,resource.updated');
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(Object.keys(body)).toEqual(['id', 'url', 'events', 'secret']);
    expect(body).toMatchObject({
      url: 'http://127.0.0.1:9000/hook',
      events: ['customer.*', 'resource.updated'],
      secret: expect.stringMatching(/^whsec_/),
    });
  });

  it('add takes --events repeated as one list', async () => {
    const result = await addJson('customer.*', 'resource.updated');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).events).toEqual(['customer.*', 'resource.updated']);
  });

  it('add exits 2 naming the field the API refused, and 2 without --url', async () => {
    const badEvents = await cli.run([
      'subscriptions',
      'add',
      '--url',
      'http://127.0.0.1:9000/hook',
      '--events',
      'customer.*,no such',
    ]);
    expect(badEvents.code).toBe(2);
    expect(badEvents.stderr).toContain('--events: no such: must be an event type');
    const badUrl = await cli.run(['subscriptions', 'add', '--url', 'ftp://x']);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('--url: must use http or https');
    const missing = await cli.run(['subscriptions', 'add']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--url');
  });

  it('list shows a table without secrets, and --json one document', async () => {
    const table = await cli.run(['subscriptions', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+URL\s+EVENTS\s+STATE\s+CREATED$/);
    expect(table.stdout).toContain('customer.*,resource.updated');
    expect(table.stdout).not.toContain('whsec_');
    const json = await cli.run(['subscriptions', 'list', '--json']);
    const listed = JSON.parse(json.stdout) as { id: string; enabled: boolean }[];
    expect(listed.length).toBeGreaterThanOrEqual(2);
    expect(listed.every((s) => s.enabled)).toBe(true);
  });

  it('rotate-secret prints a new secret, remove removes, and an unknown id exits 1', async () => {
    const added = JSON.parse(
      (await cli.run(['subscriptions', 'add', '--url', 'http://127.0.0.1:9000/x', '--json']))
        .stdout,
    );
    const rotated = await cli.run(['subscriptions', 'rotate-secret', added.id, '--json']);
    expect(rotated.code).toBe(0);
    const { secret } = JSON.parse(rotated.stdout);
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(added.secret);

    const removed = await cli.run(['subscriptions', 'remove', added.id]);
    expect(removed).toMatchObject({ code: 0, stdout: `Removed subscription ${added.id}` });
    const again = await cli.run(['subscriptions', 'remove', added.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`subscription ${added.id} does not exist`);
  });

  /** Runs `run` while the harness's dispatcher delivers what its queue holds, as `start` does. */
  async function whileDispatching<T>(run: () => Promise<T>): Promise<T> {
    let done = false;
    const dispatching = (async () => {
      while (!done) {
        const records = cli.harness.queue.receive(10);
        if (records.length > 0) await processDispatchBatch(records, cli.harness.dispatcher);
        else await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      return await run();
    } finally {
      done = true;
      await dispatching;
    }
  }

  it('ping waits for the first attempt and prints how it went; an unknown id exits 1', async () => {
    const receiver = createServer((_request, response) => response.writeHead(204).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ping`;
    const added = JSON.parse(
      (await cli.run(['subscriptions', 'add', '--url', url, '--json'])).stdout,
    );
    const ping = await whileDispatching(() => cli.run(['subscriptions', 'ping', added.id]));
    receiver.close();
    expect(ping.code).toBe(0);
    expect(ping.stdout).toMatch(
      new RegExp(`^Ping of ${added.id}: delivery \\S+ delivered \\(HTTP 204\\)$`),
    );
    const json = await whileDispatching(() =>
      cli.run(['subscriptions', 'ping', added.id, '--json']),
    );
    expect(JSON.parse(json.stdout)).toMatchObject({ subscriptionId: added.id, attempts: 1 });
    const nope = 'sub_00000000000000000000000000';
    const unknown = await cli.run(['subscriptions', 'ping', nope]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(nope);
  });

  it('ping prints a refused first attempt and exits 1, and the delivery as queued with --wait 0, exit 0', async () => {
    const added = JSON.parse(
      (await cli.run(['subscriptions', 'add', '--url', 'http://127.0.0.1:8/ping', '--json']))
        .stdout,
    );
    const refused = await whileDispatching(() => cli.run(['subscriptions', 'ping', added.id]));
    expect(refused.stdout).toMatch(
      new RegExp(`^Ping of ${added.id}: delivery \\S+ pending: network: .*ECONNREFUSED`),
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`ping of ${added.id} not delivered`);
    const queued = await cli.run(['subscriptions', 'ping', added.id, '--wait', '0']);
    expect(queued).toMatchObject({ code: 0, stderr: '' });
    expect(queued.stdout).toMatch(new RegExp(`^Ping of ${added.id}: delivery \\S+ queued$`));
    // No dispatcher runs: no attempt comes within the wait, which says nothing of the endpoint.
    const unseen = await cli.run(['subscriptions', 'ping', added.id, '--wait', '300ms']);
    expect(unseen.code).toBe(1);
    expect(unseen.stdout).toMatch(/ queued \(no attempt within 300ms; see `deliveries list/);
    expect(unseen.stderr).toContain('no attempt within 300ms');
    const unseenJson = await cli.run([
      'subscriptions',
      'ping',
      added.id,
      '--wait',
      '300ms',
      '--json',
    ]);
    expect(unseenJson.code).toBe(1);
    expect(JSON.parse(unseenJson.stdout)).toMatchObject({ status: 'pending', attempts: 0 });
    for (const wait of ['soon', '15']) {
      const bad = await cli.run(['subscriptions', 'ping', added.id, '--wait', wait]);
      expect(bad.code).toBe(2);
      // --wait configures the command (how long it watches), as backfill --poll-interval does.
      expect(bad.stderr.split('\n')[0]).toBe(
        `error: configuration is invalid: --wait: ${PING_WAIT_TAKES}`,
      );
    }
  });

  it('exits 1 saying where it tried when the API is unreachable', async () => {
    const gone = await startAdminServer({ port: 0, deps: cli.harness.deps });
    await gone.close();
    const result = await cli.run(['subscriptions', 'list', '--api', gone.url], { api: false });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot reach the admin API at ${gone.url}`);
  });

  it('exits 2 naming the field of invalid input even when no bridge answers', async () => {
    const gone = await startAdminServer({ port: 0, deps: cli.harness.deps });
    await gone.close();
    const run = (args: string[]) =>
      cli.run([...args, '--api', gone.url], { api: false, stdin: 'token\n' });
    const cases: [string[], string][] = [
      [['events', 'list', '--limit', 'abc'], '--limit: must be a whole number from 1 to 1000'],
      [['events', 'list', '--type', 'nonsense'], '--type: must be an event type'],
      [['deliveries', 'list', '--limit', '0'], '--limit: must be a whole number from 1 to 1000'],
      [['subscriptions', 'add', '--url', 'notaurl'], '--url: is not an absolute URL'],
      [['subscriptions', 'add', '--url', 'ftp://x'], '--url: must use http or https'],
      [
        [
          'subscriptions',
          'add',
          '--url',
          'https://x.example',
          '--events',
          'customer.*,Customer.Updated',
        ],
        '--events: Customer.Updated: must be an event type',
      ],
      [['backfill', '--entities', 'nope'], '--entities: nope: must be one of customer, resource'],
      [['connections', 'show', 'no spaces'], 'id: must be 1 to 64 letters'],
      // Empty, an id would name another route (DELETE /subscriptions/ is DELETE /subscriptions).
      [['subscriptions', 'remove', ''], 'id: must not be empty'],
      [['events', 'show', ' '], 'id: must not be empty'],
      // A malformed event id is bad usage, not an event the bridge lacks.
      [['events', 'show', 'bad id'], 'error: id: must be an event id: evt_ and 26 characters'],
      [['events', 'replay', 'evt_1'], 'error: id: must be an event id: evt_ and 26 characters'],
      // Named as the user gave it: the STREAM argument, the --subscription flag.
      [['streams', 'reset', ''], 'stream: must not be empty'],
      [['deliveries', 'redeliver', '--subscription', ' '], '--subscription: must not be empty'],
      [['backfill', '--follow', ' '], 'error: --follow: must not be empty'],
      [['streams', 'reset', 'nocolon'], 'stream: must be <connectionId>:<entityType>'],
      // Refused under any policy, so without asking the bridge.
      [
        ['subscriptions', 'add', '--url', 'http://169.254.169.254/x'],
        '--url: 169.254.169.254 is a blocked address',
      ],
      [
        ['subscriptions', 'add', '--url', 'https://user:pw@hooks.example.com/x'],
        '--url: must not carry credentials',
      ],
      [
        ['subscriptions', 'add', '--url', 'ftp://hooks.example.com/x'],
        '--url: must use http or https',
      ],
      [['streams', 'reset', 'local:foo'], 'stream: foo is not an entity type'],
      [['streams', 'reset', 'a b:customer'], 'stream: a b is not a connection id'],
      [['connections', 'remove', 'a/b'], 'id: must be 1 to 64 letters'],
      // Led by the flag the user typed, named once, where the field has another name too.
      [['streams', 'list', '--connection', 'a b'], 'error: --connection: must be 1 to 64 letters'],
      [
        ['events', 'replay', 'evt_00000000000000000000000001', '--subscription', ''],
        'error: --subscription: must not be empty',
      ],
      [
        ['connections', 'add', '--id', 'h', '--access-token-stdin', '--product-ids', 'nope'],
        'error: --product-ids: nope: the product id must be a uuid',
      ],
      [
        ['connections', 'add', '--id', 'h', '--access-token-stdin', '--initial-sync', 'bogus'],
        'error: --initial-sync: must be baseline or emit',
      ],
      [
        ['connections', 'add', '--id', 'h', '--access-token-stdin', '--portfolio-scope', 'x:1'],
        'error: --portfolio-scope: x:1: needs the chain:<uuid> or enterprise:<uuid> prefix',
      ],
      [
        ['connections', 'add', '--id', 'h', '--access-token-stdin', '--portfolio-scope', 'bogus'],
        'error: --portfolio-scope: bogus: needs the chain:<uuid> or enterprise:<uuid> prefix',
      ],
    ];
    for (const [args, message] of cases) {
      const result = await run(args);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toContain(message);
      expect(result.stderr).not.toContain('cannot reach');
    }
  });

  it('refuses event patterns that match no event type of the catalogue, and takes those that do', async () => {
    for (const pattern of ['bogus.thing', 'Customer.Updated', 'customer.renamed', 'customer']) {
      const refused = await cli.run([
        'subscriptions',
        'add',
        '--url',
        'http://127.0.0.1:9000/h',
        '--events',
        pattern,
      ]);
      expect({ pattern, code: refused.code }).toEqual({ pattern, code: 2 });
      expect(refused.stderr).toContain('it matches no event type');
    }
    const taken = await cli.run([
      'subscriptions',
      'add',
      '--url',
      'http://127.0.0.1:9000/h',
      '--events',
      '*.deleted,customer.*,delivery.failing,accountNote.snapshot',
      '--json',
    ]);
    expect(taken.code).toBe(0);
    expect(JSON.parse(taken.stdout).events).toEqual([
      '*.deleted',
      'customer.*',
      'delivery.failing',
      'accountNote.snapshot',
    ]);
  });

  it('defaults --api to 127.0.0.1:$BRIDGE_PORT, and exits 2 naming a bad BRIDGE_PORT or --api', async () => {
    const saved = process.env.BRIDGE_PORT;
    try {
      process.env.BRIDGE_PORT = String(cli.server.port);
      expect((await cli.run(['subscriptions', 'list'], { api: false })).code).toBe(0);
      process.env.BRIDGE_PORT = 'http';
      const badPort = await cli.run(['subscriptions', 'list'], { api: false });
      expect(badPort.code).toBe(2);
      expect(badPort.stderr).toContain('BRIDGE_PORT');
    } finally {
      if (saved === undefined) delete process.env.BRIDGE_PORT;
      else process.env.BRIDGE_PORT = saved;
    }
    const badApi = await cli.run(['subscriptions', 'list', '--api', 'localhost'], { api: false });
    expect(badApi.code).toBe(2);
    expect(badApi.stderr).toContain('--api');
  });

  it('exits 2 for a BRIDGE_PORT that start refuses too (hex, spaces), where coercion took it', async () => {
    const saved = process.env.BRIDGE_PORT;
    try {
      // Before, 0x10 went to port 16 and " 4100" to port 4100 (exit 1: nothing there), while
      // start refuses both: the two named different ports for one variable.
      for (const port of ['0x10', ` ${cli.server.port}`, `${cli.server.port} `, '1e3']) {
        process.env.BRIDGE_PORT = port;
        const result = await cli.run(['subscriptions', 'list'], { api: false });
        expect({ port, code: result.code }).toEqual({ port, code: 2 });
        expect(result.stderr).toContain('BRIDGE_PORT');
      }
    } finally {
      if (saved === undefined) delete process.env.BRIDGE_PORT;
      else process.env.BRIDGE_PORT = saved;
    }
  });

  it('has --help on every subcommand (exit 0)', async () => {
    for (const command of ['add', 'list', 'remove', 'rotate-secret', 'ping']) {
      const help = await cli.run(['subscriptions', command, '--help'], { api: false });
      expect(help.code, command).toBe(0);
      expect(help.stdout, command).toContain('--api <url>');
    }
    const add = await cli.run(['subscriptions', 'add', '--help'], { api: false });
    expect(add.stdout).toContain('--events <patterns>');
  });
});

describe('change-bridge subscriptions (real executable)', () => {
  it('adds with --json through bin/change-bridge.js, exit 0; exit 2 on a refused field', async () => {
    const ok = await runBin([
      'subscriptions',
      'add',
      '--url',
      'http://127.0.0.1:9000/bin',
      '--json',
      '--api',
      cli.server.url,
    ]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      url: 'http://127.0.0.1:9000/bin',
      secret: expect.stringMatching(/^whsec_/),
    });
    const refused = await runBin([
      'subscriptions',
      'add',
      '--url',
      'nope',
      '--api',
      cli.server.url,
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('url');
  });
});
