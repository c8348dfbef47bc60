import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { ValidationError } from '../../shared/errors.ts';
import { FETCH_BLOCKED_PORTS } from '../../shared/fetch-blocked-ports.ts';
import { UndiciWebhookSender } from '../../shared/webhooks/http-sender.ts';
import { checkWebhookUrl, everRefused } from '../../shared/webhooks/url-policy.ts';
import { createHarness, loopbackResolver } from './support/harness.ts';

const publicResolver = async () => [{ address: '93.184.216.34', family: 4 as const }];

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** An HTTP server on 127.0.0.1 at the first free port of `ports`, counting the requests it gets. */
async function listenOnFirstFree(ports: readonly number[]) {
  let requests = 0;
  for (const port of ports) {
    const server: Server = createServer((_request, response) => {
      requests += 1;
      response.end();
    });
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (listening) {
      cleanup.push(() => new Promise((resolve) => server.close(() => resolve())));
      return { port, requests: () => requests };
    }
  }
  throw new Error('no blocked port above 1023 is free');
}

describe('a subscription URL on a port fetch never connects to (the WHATWG bad ports)', () => {
  it.each([
    ['https://hooks.example.com:25/in', false],
    ['https://hooks.example.com:6000/in', false],
    ['http://hooks.example.com:6667/in', true],
    ['http://127.0.0.1:10080/in', true],
  ])('refuses %s (allowPrivate=%s), over https as over http', async (url, allowPrivate) => {
    const check = await checkWebhookUrl(url, { allowPrivate }, publicResolver);
    expect(check).toEqual({ ok: false, reason: expect.stringMatching(/port/) });
    expect(everRefused(new URL(url))).toMatch(/port/);
  });

  it('allows any other port, and the scheme’s default', async () => {
    for (const url of ['https://hooks.example.com:8443/in', 'https://hooks.example.com/in']) {
      expect(await checkWebhookUrl(url, { allowPrivate: false }, publicResolver)).toMatchObject({
        ok: true,
      });
    }
  });

  it('is refused by the admin service when a subscription is created or moved there', async () => {
    const harness = createHarness();
    cleanup.push(() => harness.sender.close());
    const refused = await harness.service
      .createSubscription({ url: 'http://127.0.0.1:6000/in' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).message).toMatch(/port 6000/);
    const { subscription } = await harness.service.createSubscription({
      url: 'http://127.0.0.1:6001/in',
    });
    const moved = await harness.service
      .updateSubscription(subscription.id, { url: 'https://127.0.0.1:6000/in' })
      .catch((error: unknown) => error);
    expect(moved).toBeInstanceOf(ValidationError);
    expect((await harness.service.getSubscription(subscription.id)).url).toBe(
      'http://127.0.0.1:6001/in',
    );
  });

  it('is never posted to, even from a subscription stored before the port was refused', async () => {
    const blocked = [...FETCH_BLOCKED_PORTS].filter((port) => port > 1023);
    const server = await listenOnFirstFree(blocked);
    const sender = new UndiciWebhookSender({
      policy: { allowPrivate: true },
      resolve: loopbackResolver,
      clock: systemClock,
      timeoutMs: 2000,
    });
    cleanup.push(() => sender.close());
    for (const host of ['127.0.0.1', 'receiver.test']) {
      const result = await sender.send({
        url: `http://${host}:${server.port}/in`,
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(result).toMatchObject({ kind: 'error', error: 'blocked' });
    }
    expect(server.requests()).toBe(0);
  });
});
