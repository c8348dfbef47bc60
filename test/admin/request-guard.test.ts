import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import { allowedHostsFor, guardAdminRequest } from '../../shared/admin/request-guard.ts';
import { ValidationError } from '../../shared/errors.ts';
import { readLocalConfig } from '../../shared/local/local-config.ts';
import { type RawAnswer, rawRequest } from '../support/raw-post.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness | undefined;
let server: AdminServer | undefined;
afterEach(async () => {
  await server?.close();
  await harness?.close();
  server = undefined;
  harness = undefined;
});

async function start(token?: string): Promise<AdminServer> {
  harness = createAdminHarness();
  server = await startAdminServer({ port: 0, deps: harness.deps, token });
  return server;
}

/** One raw request (node:http lets a test choose the Host header, as a rebinding page would). */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  const url = new URL(server!.url);
  return rawRequest({
    host: url.hostname,
    port: url.port,
    method,
    path,
    headers: { host: url.host, ...headers },
    body,
  });
}

const subscription = JSON.stringify({ url: 'http://127.0.0.1:9000/hook' });
const subscriptionCount = async () => (await harness!.deps.webhooks.listSubscriptions()).length;

describe('admin API against cross-site requests', () => {
  it.each([
    ['a text/plain body', { 'content-type': 'text/plain' }, 415],
    ['a form body', { 'content-type': 'application/x-www-form-urlencoded' }, 415],
    ['a body without content-type', {}, 415],
    [
      'a foreign Origin',
      { 'content-type': 'application/json', origin: 'https://evil.example' },
      403,
    ],
    ['Origin null', { 'content-type': 'application/json', origin: 'null' }, 403],
    ['a foreign Host', { 'content-type': 'application/json', host: 'evil.example:4000' }, 403],
    [
      'a rebound Host on our port',
      { 'content-type': 'application/json', host: 'evil.example' },
      403,
    ],
    [
      'the reported form (text/plain, foreign Origin and Host)',
      { 'content-type': 'text/plain', origin: 'https://evil.example', host: 'evil.example' },
      403,
    ],
  ])('refuses POST /subscriptions with %s and creates nothing', async (_name, headers, status) => {
    await start();
    const response = await send('POST', '/subscriptions', headers, subscription);
    expect(response.status).toBe(status);
    expect(JSON.parse(response.text)).toMatchObject({ error: expect.any(String) });
    expect(await subscriptionCount()).toBe(0);
  });

  it('accepts JSON from its own host and origin, under 127.0.0.1 and localhost', async () => {
    await start();
    const { port } = server!;
    const json = { 'content-type': 'application/json; charset=utf-8' };
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      const created = await send(
        'POST',
        '/subscriptions',
        { ...json, host, origin: `http://${host}` },
        subscription,
      );
      expect(created.status, host).toBe(201);
    }
    expect(await subscriptionCount()).toBe(3);
  });

  // A browser that sends no Origin on a cross-site POST (Firefox before 70) can still post an
  // HTML form with no field: no body, but a form's media type, which no client of the API sends.
  it.each(['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain'])(
    'refuses a bodiless POST that names %s, as an empty form sends, and changes nothing',
    async (type) => {
      await start();
      const { subscription: created } = await harness!.deps.webhooks.createSubscription({
        url: 'http://127.0.0.1:9000/hook',
      });
      const before = await harness!.store.getSubscription(created.id);
      const response = await send('POST', `/subscriptions/${created.id}/rotate-secret`, {
        'content-type': type,
        'content-length': '0',
      });
      expect(response.status).toBe(415);
      expect(await harness!.store.getSubscription(created.id)).toEqual(before);
    },
  );

  it('accepts bodiless requests without a content-type', async () => {
    await start();
    expect((await send('GET', '/streams', {})).status).toBe(200);
    expect((await send('POST', '/backfill', { 'content-length': '0' })).status).toBe(202);
  });

  it('refuses the console page under a foreign Host', async () => {
    await start();
    expect((await send('GET', '/', {})).status).toBe(200);
    expect((await send('GET', '/', { host: 'evil.example' })).status).toBe(403);
    expect((await send('GET', '/console/app.js', { host: 'evil.example' })).status).toBe(403);
  });

  it('refuses Host values that are not exactly its own: trailing dot, other port, other spellings, none', async () => {
    await start();
    const { port } = server!;
    const hosts = [
      `localhost.:${port}`,
      `127.0.0.1.:${port}`,
      `127.0.0.1:${port + 1}`,
      `localhost:0${port}`,
      `[::1]:${port}`,
      `127.1:${port}`,
      `2130706433:${port}`,
      '127.0.0.1',
      'localhost',
    ];
    for (const host of hosts) {
      const created = await send(
        'POST',
        '/subscriptions',
        { 'content-type': 'application/json', host },
        subscription,
      );
      expect(created.status, host).toBe(403);
    }
    // HTTP/1.0 without a Host header at all.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk;
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.end(
        `POST /subscriptions HTTP/1.0\r\ncontent-type: application/json\r\ncontent-length: ${subscription.length}\r\n\r\n${subscription}`,
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect(await subscriptionCount()).toBe(0);
  });
});

describe('admin API with BRIDGE_ADMIN_TOKEN', () => {
  it('refuses requests without the token or with a wrong one (401) and creates nothing', async () => {
    await start('s3cret-token');
    const json = { 'content-type': 'application/json' };
    for (const authorization of [
      undefined,
      'Bearer wrong',
      'Bearer s3cret-toke',
      'Basic s3cret-token',
    ]) {
      const headers = authorization ? { ...json, authorization } : json;
      const created = await send('POST', '/subscriptions', headers, subscription);
      expect(created.status, authorization).toBe(401);
      expect(created.headers['www-authenticate']).toBe('Bearer');
      expect((await send('GET', '/streams', headers)).status).toBe(401);
    }
    expect(await subscriptionCount()).toBe(0);
  });

  it('serves every route with the token', async () => {
    await start('s3cret-token');
    const headers = { 'content-type': 'application/json', authorization: 'Bearer s3cret-token' };
    expect((await send('POST', '/subscriptions', headers, subscription)).status).toBe(201);
    expect((await send('GET', '/subscriptions', headers)).status).toBe(200);
    expect(await subscriptionCount()).toBe(1);
  });

  it('serves the console page and assets without the token, but not their data', async () => {
    await start('s3cret-token');
    expect((await send('GET', '/', {})).status).toBe(200);
    expect((await send('GET', '/console/app.js', {})).status).toBe(200);
    expect((await send('GET', '/feed', {})).status).toBe(401);
  });

  it('is required to bind a non-loopback interface', async () => {
    harness = createAdminHarness();
    await expect(
      startAdminServer({ port: 0, host: '0.0.0.0', deps: harness.deps }),
    ).rejects.toThrow(/BRIDGE_ADMIN_TOKEN/);
    const error = (() => {
      try {
        readLocalConfig({ BRIDGE_HOST: '0.0.0.0' }, {});
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe('BRIDGE_ADMIN_TOKEN');
    expect(readLocalConfig({ BRIDGE_HOST: '0.0.0.0', BRIDGE_ADMIN_TOKEN: 't' }, {})).toMatchObject({
      host: '0.0.0.0',
      adminToken: 't',
    });
    expect(readLocalConfig({}, {})).toMatchObject({ host: '127.0.0.1', adminToken: undefined });
  });

  it('names where the interface came from: --host or BRIDGE_HOST', () => {
    const messageOf = (env: Record<string, string>, flags: { host?: string }) => {
      try {
        readLocalConfig(env, flags);
      } catch (caught) {
        return (caught as Error).message;
      }
    };
    expect(messageOf({}, { host: '0.0.0.0' })).toMatch(
      /binds 0\.0\.0\.0, a non-loopback interface \(--host\)/,
    );
    expect(messageOf({ BRIDGE_HOST: '0.0.0.0' }, {})).toMatch(/\(BRIDGE_HOST\)/);
  });

  it('refuses an interface that is neither an address nor a host name', () => {
    for (const host of ['nonsense!', 'http://0.0.0.0', '0.0.0.0:4000', ' ']) {
      expect(() => readLocalConfig({}, { host })).toThrow(
        /--host: must be an IP address or a host name/,
      );
    }
    for (const host of ['::', '::1', 'localhost', 'bridge.internal', '10.0.0.5'])
      expect(readLocalConfig({ BRIDGE_ADMIN_TOKEN: 't' }, { host }).host).toBe(host);
  });
});

describe('allowedHostsFor', () => {
  it('lists the listening address, localhost when loopback, and the configured hosts', () => {
    expect(allowedHostsFor('127.0.0.1', 4000)).toEqual(['127.0.0.1:4000', 'localhost:4000']);
    expect(allowedHostsFor('::1', 4000)).toEqual(['[::1]:4000', 'localhost:4000']);
    expect(allowedHostsFor('192.168.1.5', 4000, ['Bridge.internal'])).toEqual([
      '192.168.1.5:4000',
      'bridge.internal',
    ]);
  });

  it('on port 80 answers to the Host a browser sends, which leaves the default port out', () => {
    const access = { allowedHosts: allowedHostsFor('127.0.0.1', 80) };
    for (const host of ['127.0.0.1', 'localhost']) {
      const headers = { host, origin: `http://${host}` };
      expect(guardAdminRequest({ method: 'POST', path: '/backfill', headers }, access), host).toBe(
        undefined,
      );
    }
    const explicit = { host: '127.0.0.1:80' };
    expect(guardAdminRequest({ method: 'GET', path: '/', headers: explicit }, access)).toBe(
      undefined,
    );
    expect(allowedHostsFor('127.0.0.1', 8080)).not.toContain('127.0.0.1');
  });
});
