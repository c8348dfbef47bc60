import { lookup } from 'node:dns/promises';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdminApiHandler } from '../../functions/admin-api.ts';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import { readLocalConfig } from '../../shared/local/local-config.ts';
import { type RawAnswer, rawRequest } from '../support/raw-post.ts';
import { type AdminHarness, createAdminHarness, storedChangeEvent } from './support/harness.ts';

let harness: AdminHarness | undefined;
let server: AdminServer | undefined;
afterEach(async () => {
  await server?.close();
  await harness?.close();
  server = undefined;
  harness = undefined;
});

async function start(options: { host?: string; token?: string } = {}): Promise<AdminServer> {
  harness = createAdminHarness();
  server = await startAdminServer({ port: 0, deps: harness.deps, ...options });
  return server;
}

/** One raw request to the server's port on `address`, with the Host header it is given. */
function send(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  address = '127.0.0.1',
  body?: string,
): Promise<RawAnswer> {
  return rawRequest({
    host: address,
    port: server!.port,
    method,
    path,
    headers: { host: `${address}:${server!.port}`, ...headers },
    body,
  });
}

describe('admin HTTP surface', () => {
  it('answers to the loopback address it listens on when started on localhost', async () => {
    await start({ host: 'localhost' });
    // The CLI's default --api is http://127.0.0.1:$BRIDGE_PORT: it names the address, not localhost.
    const { address } = await lookup('localhost');
    const host = address === '::1' ? `[::1]:${server!.port}` : `${address}:${server!.port}`;
    const answer = await send('GET', '/streams', { host }, address);
    expect(answer.status, answer.text).toBe(200);
    expect(
      (await send('GET', '/streams', { host: `localhost:${server!.port}` }, address)).status,
    ).toBe(200);
  });

  it('takes any ISO instant as the feed since, one before 1970 too', async () => {
    await start();
    const event = storedChangeEvent('evt_1', 'customer.updated');
    await harness!.store.putEvent({
      id: 'evt_1',
      type: 'customer.updated',
      storedAt: Date.UTC(2026, 0, 1),
      body: JSON.stringify(event),
    });
    const answer = await send('GET', '/feed?since=1969-12-31T23:59:59Z');
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.parse(answer.text).events.map((e: { id: string }) => e.id)).toEqual(['evt_1']);
  });

  it('redelivers every dead letter since an instant before 1970', async () => {
    await start();
    const { subscription } = await harness!.deps.webhooks.createSubscription({
      url: 'http://127.0.0.1:8/hook',
    });
    await harness!.store.putEvent({
      id: 'evt_1',
      type: 'customer.updated',
      storedAt: 1,
      body: '{}',
    });
    const now = harness!.clock.now();
    const dead = {
      id: 'dlv_dead',
      eventId: 'evt_1',
      subscriptionId: subscription.id,
      status: 'dead' as const,
      attempts: 8,
      nextAttemptAt: 0,
      createdAt: now - 1000,
      updatedAt: now,
      version: 9,
      deadAt: now,
    };
    await harness!.store.createDelivery(dead);
    await harness!.store.addDeadLetter(dead);
    const answer = await send(
      'POST',
      `/subscriptions/${subscription.id}/redeliver`,
      { 'content-type': 'application/json' },
      '127.0.0.1',
      JSON.stringify({ since: '1969-07-20T20:17:40Z' }),
    );
    expect(answer.status, answer.text).toBe(202);
    expect(JSON.parse(answer.text).deliveries).toMatchObject([{ eventId: 'evt_1' }]);
  });

  it('answers HEAD as GET without a body, the console page under a token included', async () => {
    await start({ token: 'tok' });
    const page = await send('HEAD', '/');
    expect(page.status, page.text).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toBe('');
    const health = await send('HEAD', '/health', { authorization: 'Bearer tok' });
    expect(health.status).toBe(200);
    expect(health.headers['content-type']).toBe('application/json; charset=utf-8');
    expect((await send('HEAD', '/health')).status).toBe(401);
    expect(
      (await send('HEAD', '/subscriptions/x/ping', { authorization: 'Bearer tok' })).status,
    ).toBe(405);
  });

  it('answers HEAD behind API Gateway as GET without a body', async () => {
    harness = createAdminHarness();
    const lambda = createAdminApiHandler(() => harness!.deps);
    const page = await lambda({
      rawPath: '/',
      headers: {},
      requestContext: { http: { method: 'HEAD' } },
    } as never);
    expect(page.statusCode).toBe(200);
    expect(page.headers?.['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toBeUndefined();
  });

  it('marks every answer, JSON and errors too, as not to be cached or sniffed, locally and behind API Gateway', async () => {
    await start();
    for (const path of ['/streams', '/subscriptions/sub_missing', '/no-such-route']) {
      const answer = await send('GET', path);
      expect(answer.headers['x-content-type-options'], path).toBe('nosniff');
      expect(answer.headers['cache-control'], path).toBe('no-store');
    }
    const lambda = createAdminApiHandler(() => harness!.deps);
    const streams = await lambda({
      rawPath: '/streams',
      headers: {},
      requestContext: { http: { method: 'GET' } },
    } as never);
    expect(streams.statusCode).toBe(200);
    expect(streams.headers?.['x-content-type-options']).toBe('nosniff');
    expect(streams.headers?.['cache-control']).toBe('no-store');
  });

  it('behind API Gateway refuses what a web page can send through a local SigV4 proxy', async () => {
    harness = createAdminHarness();
    const lambda = createAdminApiHandler(() => harness!.deps);
    const call = (
      method: string,
      rawPath: string,
      headers: Record<string, string>,
      body?: string,
    ) =>
      lambda({
        rawPath,
        headers: { host: 'abc123.execute-api.eu-west-1.amazonaws.com', ...headers },
        requestContext: { http: { method } },
        isBase64Encoded: false,
        ...(body !== undefined ? { body } : {}),
      } as never);
    const hook = JSON.stringify({ url: 'http://127.0.0.1:8/hook' });
    // A cross-site no-cors fetch or form post: a body as text/plain, no preflight.
    const posted = await call('POST', '/subscriptions', { 'content-type': 'text/plain' }, hook);
    expect(posted.statusCode).toBe(415);
    expect(await harness!.deps.webhooks.listSubscriptions()).toEqual([]);
    // The console through the proxy: same origin, JSON.
    const own = await call(
      'POST',
      '/subscriptions',
      { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      hook,
    );
    expect(own.statusCode).toBe(201);
    const { id, secret } = JSON.parse(own.body!) as { id: string; secret: string };
    // A bodiless POST another site sends: the browser marks it cross-site.
    for (const site of ['cross-site', 'same-site']) {
      const rotated = await call('POST', `/subscriptions/${id}/rotate-secret`, {
        'sec-fetch-site': site,
        origin: 'https://evil.example',
      });
      expect(rotated.statusCode, site).toBe(403);
      expect(JSON.parse(rotated.body!)).toMatchObject({ error: expect.any(String) });
    }
    const stored = await harness!.store.getSubscription(id);
    expect(stored?.secret).toBe(secret);
    // A link from another site opens the console: reads change nothing.
    const page = await call('GET', '/', {
      'sec-fetch-site': 'cross-site',
      'sec-fetch-mode': 'navigate',
    });
    expect(page.statusCode).toBe(200);
    // The CLI and awscurl send no Sec-Fetch-Site and no Origin.
    expect((await call('POST', `/subscriptions/${id}/rotate-secret`, {})).statusCode).toBe(200);
  });

  it('bound to every interface, answers to each loopback address under its own name', async () => {
    await start({ host: '::', token: 'tok' });
    const auth = { authorization: 'Bearer tok' };
    const ipv6 = await send('GET', '/streams', { ...auth, host: `[::1]:${server!.port}` }, '::1');
    expect(ipv6.status, ipv6.text).toBe(200);
    const ipv4 = await send('GET', '/streams', auth, '127.0.0.1');
    expect(ipv4.status, ipv4.text).toBe(200);
  });

  it('names BRIDGE_ALLOWED_HOSTS when it refuses a Host, so the operator knows what to set', async () => {
    await start({ host: '0.0.0.0', token: 'tok' });
    const refused = await send('GET', '/streams', {
      authorization: 'Bearer tok',
      host: `192.0.2.10:${server!.port}`,
    });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text).error).toMatch(/BRIDGE_ALLOWED_HOSTS/);
  });

  it('refuses an absolute-form target naming a host it does not answer to, whatever the Host header says', async () => {
    await start();
    const own = `127.0.0.1:${server!.port}`;
    const refused = await send('GET', 'http://rebound.example/streams');
    expect(refused.status, refused.text).toBe(403);
    expect(JSON.parse(refused.text).error).toMatch(/rebound\.example/);
    const answered = await send('GET', `http://${own}/streams`);
    expect(answered.status, answered.text).toBe(200);
    // The asterisk-form names no host: no route, as before.
    expect((await send('OPTIONS', '*')).status).toBe(404);
  });

  it('reads a repeated query parameter behind API Gateway as the local server does: its first value', async () => {
    await start();
    const local = await send('GET', '/events?limit=1&limit=2&type=customer.updated');
    expect(local.status, local.text).toBe(200);
    const lambda = createAdminApiHandler(() => harness!.deps);
    // API Gateway (payload 2.0) joins the values of a repeated parameter with commas.
    const answer = await lambda({
      rawPath: '/events',
      rawQueryString: 'limit=1&limit=2&type=customer.updated',
      queryStringParameters: { limit: '1,2', type: 'customer.updated' },
      headers: {},
      requestContext: { http: { method: 'GET' } },
    } as never);
    expect(answer.statusCode, answer.body).toBe(200);
  });

  it('names an unknown query parameter even when Object.prototype has a property of its name', async () => {
    await start();
    for (const name of ['x', 'constructor', 'toString']) {
      const answer = await send('GET', `/subscriptions?${name}=1`);
      expect(answer.status, name).toBe(400);
      expect(JSON.parse(answer.text).field, name).toBe(name);
    }
  });

  it('refuses a BRIDGE_ALLOWED_HOSTS entry no Host header can equal, naming the variable', () => {
    for (const entry of ['http://bridge.internal:4000', 'bridge.internal:4000/', '*', 'a b:4000']) {
      expect(() => readLocalConfig({ BRIDGE_ALLOWED_HOSTS: entry }, {}), entry).toThrow(
        /BRIDGE_ALLOWED_HOSTS/,
      );
    }
    const hosts = 'bridge.internal:4000, 10.0.0.5:4000,[::1]:4000,Bridge.Internal,my_bridge:4000';
    const env = { BRIDGE_ALLOWED_HOSTS: hosts, BRIDGE_ADMIN_TOKEN: 'tok' };
    expect(readLocalConfig(env, {}).allowedHosts).toEqual([
      'bridge.internal:4000',
      '10.0.0.5:4000',
      '[::1]:4000',
      'Bridge.Internal',
      'my_bridge:4000',
    ]);
  });

  it('refuses BRIDGE_ALLOWED_HOSTS naming a host other than loopback without BRIDGE_ADMIN_TOKEN, naming both', () => {
    for (const entry of ['bridge.internal:4000', '10.0.0.5', '[2001:db8::1]:4000', 'my_bridge']) {
      const env = { BRIDGE_ALLOWED_HOSTS: `localhost:4000,${entry}` };
      // The entry by its place, not its text: a value set in the environment may be a secret.
      expect(() => readLocalConfig(env, {}), entry).toThrow(
        'BRIDGE_ADMIN_TOKEN: required when BRIDGE_ALLOWED_HOSTS names a host other than loopback (entry 2 of 2)',
      );
      expect(readLocalConfig({ ...env, BRIDGE_ADMIN_TOKEN: 'tok' }, {}).allowedHosts).toContain(
        entry,
      );
    }
    // Loopback names: what reaches them is on this machine already.
    const loopback = 'localhost:4000,LOCALHOST,127.0.0.1:8080,127.1.2.3,[::1]:4000';
    expect(readLocalConfig({ BRIDGE_ALLOWED_HOSTS: loopback }, {}).allowedHosts).toHaveLength(5);
  });

  it('takes a BRIDGE_ADMIN_TOKEN with a trailing newline as the CLI sends it: a header cannot carry the newline', async () => {
    const { adminToken } = readLocalConfig({ BRIDGE_ADMIN_TOKEN: 'tok-from-a-file\n' }, {});
    await start({ token: adminToken });
    // What the CLI sends from the same variable, as the server's parser reads it.
    const answer = await send('GET', '/streams', { authorization: 'Bearer tok-from-a-file' });
    expect(answer.status, answer.text).toBe(200);
    expect(readLocalConfig({ BRIDGE_ADMIN_TOKEN: ' \n' }, {}).adminToken).toBeUndefined();
  });

  it('refuses subscription filters too long to store, naming the field, instead of a 500 from the store', async () => {
    await start();
    const long = 'x'.repeat(5000);
    const json = { 'content-type': 'application/json' };
    // 100 such fields fit the 1 MiB body but not DynamoDB's 400 KB item: the store threw, a 500.
    for (const [body, field] of [
      [{ changedFields: Array.from({ length: 100 }, (_, i) => `${long}${i}`) }, 'changedFields[0]'],
      [{ scope: { enterpriseIds: [long] } }, 'scope.enterpriseIds[0]'],
      [{ scope: { chainIds: [long] } }, 'scope.chainIds[0]'],
    ] as const) {
      const answer = await send(
        'POST',
        '/subscriptions',
        json,
        '127.0.0.1',
        JSON.stringify({ url: 'http://127.0.0.1:8/hook', ...body }),
      );
      expect(answer.status, field).toBe(400);
      expect(JSON.parse(answer.text).field).toBe(field);
    }
    expect(await harness!.deps.webhooks.listSubscriptions()).toEqual([]);
  });

  it('bound to every interface, gives a loopback URL a browser opens, not the wildcard address', async () => {
    for (const host of ['0.0.0.0', '::']) {
      await start({ host, token: 'tok' });
      expect(server!.url, host).toBe(`http://127.0.0.1:${server!.port}`);
      const health = await fetch(`${server!.url}/health`, {
        headers: { authorization: 'Bearer tok' },
      });
      expect(health.status, host).toBe(200);
      await server!.close();
      await harness!.close();
      server = undefined;
      harness = undefined;
    }
  });
});

describe('admin HTTP server answering what it cannot send', () => {
  it('answers 500 and keeps serving when an answer cannot be serialized (a connector answer nested too deep)', async () => {
    harness = createAdminHarness();
    const errors: unknown[] = [];
    // JSON.parse takes nesting this deep; JSON.stringify overflows the stack on it.
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    server = await startAdminServer({
      port: 0,
      deps: {
        ...harness.deps,
        onError: (error) => errors.push(error),
        writeThrough: {
          forward: async () => ({ status: 200, body: deep, headers: {}, events: 0 }),
          close: async () => {},
        },
      },
    });
    const answer = await fetch(`${server.url}/api/connector/v1/taxEnvironments/getAll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(5000),
    });
    expect(answer.status).toBe(500);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await answer.json()).toEqual({ error: 'internal error' });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(RangeError);
    const health = await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(5000) });
    expect(health.status).toBe(200);
  });
});

describe('admin HTTP server closing', () => {
  it('closes at once despite clients holding a request half sent, and lets a request it is serving finish', async () => {
    harness = createAdminHarness();
    let answer: (() => void) | undefined;
    const forwarded = new Promise<void>((called) => {
      harness!.deps.writeThrough = {
        forward: async () => {
          called();
          await new Promise<void>((resolve) => {
            answer = resolve;
          });
          return { status: 200, body: { TaxEnvironments: [] }, headers: {}, events: 0 };
        },
        close: async () => {},
      };
    });
    server = await startAdminServer({ port: 0, deps: harness.deps });
    const { port } = server;
    const host = `127.0.0.1:${port}`;
    // Another local process: headers cut short, and a body cut short. Node keeps waiting for
    // the rest until its headersTimeout (60 s) and requestTimeout (300 s).
    const halfHeaders = connect(port, '127.0.0.1');
    halfHeaders.on('error', () => {});
    halfHeaders.write(`GET /health HTTP/1.1\r\nhost: ${host}\r\n`);
    const halfBody = connect(port, '127.0.0.1');
    halfBody.on('error', () => {});
    halfBody.write(
      `POST /subscriptions HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{`,
    );
    const served = fetch(`${server.url}/api/connector/v1/taxEnvironments/getAll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await forwarded;
    const closed = server.close();
    server = undefined;
    answer!();
    const response = await served;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ TaxEnvironments: [] });
    const within = await Promise.race([
      closed.then(() => 'closed'),
      new Promise((resolve) => setTimeout(resolve, 5000, 'still open')),
    ]);
    halfHeaders.destroy();
    halfBody.destroy();
    expect(within).toBe('closed');
  });
});
