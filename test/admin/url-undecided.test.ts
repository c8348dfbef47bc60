import { afterEach, describe, expect, it } from 'vitest';
import { HostLookupStoppedError, HostUnansweredError } from '../../shared/dns/host-resolver.ts';
import type { HostResolver } from '../../shared/dns/system-resolver.ts';
import { startCliHarness } from './support/cli.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

/** A name server that never answers, as the resolver reports it after its tries. */
const silentNameServer: HostResolver = async (host) => {
  throw new HostUnansweredError(
    `host ${host} does not resolve: its name server did not answer (ETIMEOUT)`,
    { retryable: true },
  );
};

let harness: AdminHarness | undefined;
let cli: Awaited<ReturnType<typeof startCliHarness>> | undefined;
afterEach(async () => {
  await harness?.close();
  await cli?.close();
  harness = undefined;
  cli = undefined;
});

describe('a subscription URL whose host cannot be looked up for now', () => {
  it('is answered 503 with retry-after, naming url, and nothing is stored', async () => {
    harness = createAdminHarness({ resolve: silentNameServer });
    const response = await harness.call('POST', '/subscriptions', {
      body: { url: 'https://hooks.example.com/in' },
    });
    expect(response.status).toBe(503);
    expect(response.headers).toMatchObject({ 'retry-after': '5' });
    expect(response.body).toEqual({
      error:
        'url could not be checked now: host hooks.example.com does not resolve: its name server did not answer (ETIMEOUT); try again',
      field: 'url',
    });
    expect(await harness.store.listSubscriptions()).toEqual([]);
  });

  it('is answered 503 when an update names it, and the subscription keeps its URL', async () => {
    let lookups: HostResolver = async () => [{ address: '127.0.0.1', family: 4 }];
    harness = createAdminHarness({ resolve: (host, signal) => lookups(host, signal) });
    const created = await harness.call('POST', '/subscriptions', {
      body: { url: 'http://127.0.0.1:9000/hook' },
    });
    const { id } = created.body as { id: string };
    lookups = async (host) => {
      throw new HostLookupStoppedError(`host ${host} not resolved: the process is stopping`, {
        retryable: true,
      });
    };
    const updated = await harness.call('PATCH', `/subscriptions/${id}`, {
      body: { url: 'https://hooks.example.com/in' },
    });
    expect(updated.status).toBe(503);
    expect(updated.body).toMatchObject({ field: 'url' });
    expect(await harness.store.getSubscription(id)).toMatchObject({
      url: 'http://127.0.0.1:9000/hook',
    });
  });

  it('a name no name server knows is still invalid input: 400', async () => {
    harness = createAdminHarness({
      resolve: async (host) => {
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    });
    const response = await harness.call('POST', '/subscriptions', {
      body: { url: 'https://nowhere.example.com/in' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ field: 'url' });
  });

  it('subscriptions add exits 1, not 2, saying so', async () => {
    cli = await startCliHarness({ harness: { resolve: silentNameServer } });
    const result = await cli.run(['subscriptions', 'add', '--url', 'https://hooks.example.com/in']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'url could not be checked now: host hooks.example.com does not resolve: its name server did not answer (ETIMEOUT); try again (HTTP 503',
    );
  });
});
