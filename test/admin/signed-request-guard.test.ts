import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdminApiHandler } from '../../functions/admin-api.ts';
import { type RawAnswer, rawRequest } from '../support/raw-post.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

/*
 * The admin API as README has the console opened in AWS: a SigV4 proxy on loopback signs
 * whatever reaches it and API Gateway hands it to the handler. The stand-in below is that
 * path on 127.0.0.1 (signing left out: IAM accepts every signed request), so a test sends
 * what a browser sends.
 */

let harness: AdminHarness | undefined;
let proxy: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
  await harness?.close();
  proxy = undefined;
  harness = undefined;
});

/** The proxy and API Gateway on 127.0.0.1: each request becomes the handler's payload 2.0 event. */
async function startProxy(): Promise<number> {
  harness = createAdminHarness();
  const lambda = createAdminApiHandler(() => harness!.deps);
  proxy = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', 'http://proxy.invalid');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
    }
    // The proxy sends the API's own Host, whatever Host the page reached it under.
    headers.host = 'abc123.execute-api.eu-west-1.amazonaws.com';
    const result = await lambda({
      rawPath: url.pathname,
      rawQueryString: url.search.slice(1),
      headers,
      requestContext: { http: { method: request.method ?? 'GET' } },
      isBase64Encoded: false,
      ...(body !== '' ? { body } : {}),
    } as never);
    response.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
    response.end(result.body);
  });
  await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
  return (proxy.address() as AddressInfo).port;
}

function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  return rawRequest({
    host: '127.0.0.1',
    port,
    method,
    path,
    headers: { host: `127.0.0.1:${port}`, ...headers },
    body,
  });
}

describe('admin API behind a SigV4 proxy, against pages of other sites', () => {
  // What a browser without Sec-Fetch-Site (Safari before 16.4, Firefox before 90) sends for a
  // cross-site form post or no-cors fetch without a body: no preflight, and only its Origin
  // says which page sent it (`null` from a page with Referrer-Policy: no-referrer).
  const crossSite: [string, Record<string, string>][] = [
    [
      'an empty form post',
      {
        origin: 'https://evil.example',
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': '0',
      },
    ],
    ['a no-cors fetch without body', { origin: 'https://evil.example' }],
    ['a no-cors fetch from a no-referrer page', { origin: 'null' }],
    ['a page rebinding its name to the proxy', { origin: 'http://evil.example:8080' }],
  ];

  it.each(crossSite)(
    'refuses %s without Sec-Fetch-Site: rotating a secret, starting a backfill',
    async (_name, headers) => {
      const port = await startProxy();
      const { subscription, secret } = await harness!.deps.webhooks.createSubscription({
        url: 'http://127.0.0.1:8/hook',
      });
      const rotated = await send(
        port,
        'POST',
        `/subscriptions/${subscription.id}/rotate-secret`,
        headers,
      );
      expect(rotated.status, rotated.text).toBe(403);
      expect(JSON.parse(rotated.text)).toMatchObject({ error: expect.stringMatching(/origin/) });
      expect((await harness!.store.getSubscription(subscription.id))?.secret).toBe(secret);
      const backfill = await send(port, 'POST', '/backfill', headers);
      expect(backfill.status, backfill.text).toBe(403);
    },
  );

  it('serves the console through the proxy on loopback, and clients that send no Origin', async () => {
    const port = await startProxy();
    const json = { 'content-type': 'application/json' };
    for (const origin of [
      `http://127.0.0.1:${port}`,
      `http://localhost:${port}`,
      'http://[::1]:8080',
    ]) {
      const created = await send(
        port,
        'POST',
        '/subscriptions',
        { ...json, origin },
        JSON.stringify({ url: 'http://127.0.0.1:8/hook' }),
      );
      expect(created.status, `${origin}: ${created.text}`).toBe(201);
    }
    const [first] = await harness!.deps.webhooks.listSubscriptions();
    // The CLI and other SigV4 clients send neither Origin nor Sec-Fetch-Site.
    const rotated = await send(port, 'POST', `/subscriptions/${first!.id}/rotate-secret`, {});
    expect(rotated.status, rotated.text).toBe(200);
    // Reads change nothing: a link from another site still opens the console.
    const page = await send(port, 'GET', '/', { origin: 'https://evil.example' });
    expect(page.status).toBe(200);
  });
});
