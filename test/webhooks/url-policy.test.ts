import { describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { HostUnansweredError } from '../../shared/dns/host-resolver.ts';
import type { HostResolver } from '../../shared/dns/system-resolver.ts';
import { UndiciWebhookSender } from '../../shared/webhooks/http-sender.ts';
import { checkWebhookUrl, everRefused } from '../../shared/webhooks/url-policy.ts';
import { startReceiver } from './support/receiver.ts';

const dns: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'dual.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
  'sneaky-loopback.example.com': ['127.0.0.1'],
  'sneaky-metadata.example.com': ['169.254.169.254'],
  'mixed.example.com': ['93.184.216.34', '10.0.0.5'],
  'internal.example.com': ['192.168.1.20'],
  'nat64-loopback.example.com': ['64:ff9b::7f00:1'],
  'teredo-private.example.com': ['2001:0:4136:e378:8000:63bf:f5ff:fffe'],
};

const resolver: HostResolver = async (host) => {
  const found = dns[host];
  if (!found) throw new Error(`ENOTFOUND ${host}`);
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const cases: [url: string, allowPrivate: boolean, allowed: boolean][] = [
  ['https://hooks.example.com/in', false, true],
  ['https://dual.example.com/in', false, true],
  ['https://93.184.216.34/in', false, true],
  ['http://hooks.example.com/in', false, false],
  ['ftp://hooks.example.com/in', false, false],
  ['not a url', false, false],
  ['https://user:pw@hooks.example.com/in', false, false],
  ['https://sneaky-loopback.example.com/in', false, false],
  ['https://sneaky-metadata.example.com/in', false, false],
  ['https://mixed.example.com/in', false, false],
  ['https://internal.example.com/in', false, false],
  ['https://unknown.example.com/in', false, false],
  ['https://127.0.0.1/in', false, false],
  ['https://[::1]/in', false, false],
  ['https://10.1.2.3/in', false, false],
  ['https://172.16.0.1/in', false, false],
  ['https://192.168.0.1/in', false, false],
  ['https://100.64.0.1/in', false, false],
  ['https://169.254.10.10/in', false, false],
  ['https://[fd12:3456::1]/in', false, false],
  ['https://[fe80::1]/in', false, false],
  ['https://[fec0::1]/in', false, false], // site-local
  ['https://[100::1]/in', false, false], // discard-only
  ['https://[2001:db8::1]/in', false, false], // documentation
  ['https://[::ffff:127.0.0.1]/in', false, false],
  ['https://0.0.0.0/in', false, false],
  ['https://2130706433/', false, false], // 127.0.0.1 in decimal
  ['https://0177.0.0.1/', false, false], // octal
  ['https://0x7f.0.0.1/', false, false], // hex
  ['https://[::ffff:7f00:1]/', false, false], // IPv4-mapped, hex form
  ['https://[64:ff9b::7f00:1]/', false, false], // NAT64 of 127.0.0.1
  ['https://[64:ff9b::10.0.0.1]/', false, false], // NAT64 of 10.0.0.1
  ['https://[64:ff9b:1:7f00:0:100::]/', false, false], // local-use NAT64 /48 of 127.0.0.1
  ['https://[64:ff9b:1::c0a8:101]/', false, false], // local-use NAT64 /96 of 192.168.1.1
  ['https://[2002:7f00:1::]/', false, false], // 6to4 of 127.0.0.1
  ['https://[2002:a9fe:a9fe::1]/', false, false], // 6to4 of 169.254.169.254
  ['https://[::127.0.0.1]/', false, false], // IPv4-compatible
  ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', false, false], // Teredo, client 127.0.0.1
  ['https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/', false, false], // Teredo, client 10.0.0.1
  ['https://[64:ff9b::5db8:d822]/', false, true], // NAT64 of 93.184.216.34
  ['https://[2002:5db8:d822::1]/', false, true], // 6to4 of 93.184.216.34
  ['https://[2001:0:4136:e378:8000:63bf:a247:27dd]/', false, true], // Teredo, client 93.184.216.34
  ['https://[64:ff9b:1::5db8:d822]/', false, true], // local-use NAT64 /96 of 93.184.216.34
  ['https://[2606:2800:220:1::1]/', false, true],
  ['https://nat64-loopback.example.com/in', false, false],
  ['https://teredo-private.example.com/in', false, false],
  ['https://169.254.169.254/latest/meta-data', false, false],
  ['https://[fd00:ec2::254]/in', false, false],
  ['http://127.0.0.1:4000/in', true, true],
  ['http://sneaky-loopback.example.com/in', true, true],
  ['http://internal.example.com/in', true, true],
  ['http://[::1]:8080/in', true, true],
  ['http://sneaky-metadata.example.com/in', true, false],
  ['http://169.254.169.254/latest/meta-data', true, false],
  ['http://[fd00:ec2::254]/in', true, false],
  ['http://0.0.0.0:4000/in', true, false],
  ['http://[64:ff9b::7f00:1]/in', true, true],
  ['http://[64:ff9b::a9fe:a9fe]/in', true, false], // NAT64 of the metadata address
  ['http://[2002:a9fe:a9fe::]/in', true, false], // 6to4 of the metadata address
];

describe('subscription URL policy (SSRF)', () => {
  it.each(cases)('%s with allowPrivate=%s is allowed: %s', async (url, allowPrivate, allowed) => {
    const check = await checkWebhookUrl(url, { allowPrivate }, resolver);
    expect(check.ok).toBe(allowed);
    if (!check.ok) expect(check.reason.length).toBeGreaterThan(0);
  });

  it.each([
    ['https://hooks.example.com/in#frag', false],
    ['http://127.0.0.1:4000/in#frag', true],
    ['http://127.0.0.1:4000/in#', true],
  ])(
    'refuses %s (allowPrivate=%s): a fragment is never sent, so the stored URL is not the one called',
    async (url, allowPrivate) => {
      const check = await checkWebhookUrl(url, { allowPrivate }, resolver);
      expect(check).toEqual({ ok: false, reason: expect.stringContaining('fragment') });
      expect(everRefused(new URL(url))).toContain('fragment');
    },
  );

  it('says in a sentence why a host name is refused: what it resolves to, and why that is refused', async () => {
    const toLoopback = async () => [{ address: '127.0.0.1', family: 4 as const }];
    const check = await checkWebhookUrl(
      'https://hooks.example.com/in',
      { allowPrivate: false },
      toLoopback,
    );
    expect(check).toEqual({
      ok: false,
      reason:
        'host hooks.example.com resolves to a refused address: 127.0.0.1 is a private, loopback or link-local address',
    });
  });

  it('says that no name server answered when so (undecided: it may pass later), and only that the host does not resolve otherwise', async () => {
    const unanswered = async (): Promise<never> => {
      throw new HostUnansweredError(
        'host hooks.example.com does not resolve: its name server did not answer (ETIMEOUT)',
      );
    };
    const unknown = async (): Promise<never> => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND hooks.example.com'), {
        code: 'ENOTFOUND',
      });
    };
    const url = 'https://hooks.example.com/in';
    expect(await checkWebhookUrl(url, { allowPrivate: false }, unanswered)).toEqual({
      ok: false,
      reason: 'host hooks.example.com does not resolve: its name server did not answer (ETIMEOUT)',
      undecided: true,
    });
    expect(await checkWebhookUrl(url, { allowPrivate: false }, unknown)).toEqual({
      ok: false,
      reason: 'host hooks.example.com does not resolve',
    });
  });

  it('refuses at delivery time a host that resolves to a refused address, without connecting', async () => {
    const receiver = await startReceiver();
    const sender = new UndiciWebhookSender({
      policy: { allowPrivate: false },
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
      clock: systemClock,
      timeoutMs: 2000,
    });
    const port = new URL(receiver.url('/')).port;
    const result = await sender.send({
      url: `http://rebound.example.com:${port}/in`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(result).toMatchObject({ kind: 'error', error: 'blocked' });
    const literal = await sender.send({ url: receiver.url('/in'), headers: {}, body: '{}' });
    expect(literal).toMatchObject({ kind: 'error', error: 'blocked' });
    expect(receiver.log).toHaveLength(0);
    await sender.close();
    await receiver.close();
  });

  it.each(['64:ff9b::7f00:1', '2002:7f00:1::', '::7f00:1', '2001:0:4136:e378:8000:63bf:80ff:fffe'])(
    'refuses at delivery time a host that resolves to %s, which carries 127.0.0.1',
    async (address) => {
      const sender = new UndiciWebhookSender({
        policy: { allowPrivate: false },
        resolve: async () => [{ address, family: 6 }],
        clock: systemClock,
        timeoutMs: 2000,
      });
      const result = await sender.send({
        url: 'https://rebound.example.com/in',
        headers: {},
        body: '{}',
      });
      expect(result).toMatchObject({ kind: 'error', error: 'blocked' });
      await sender.close();
    },
  );

  it('refuses at delivery time an http URL stored while private addresses were allowed, without looking it up', async () => {
    const looked: string[] = [];
    const sender = new UndiciWebhookSender({
      policy: { allowPrivate: false },
      resolve: async (host) => {
        looked.push(host);
        return [{ address: '192.0.2.1', family: 4 }]; // TEST-NET-1: never reached
      },
      clock: systemClock,
      timeoutMs: 500,
    });
    const result = await sender.send({
      url: 'http://hooks.example.com/in',
      headers: {},
      body: '{}',
    });
    expect(result).toMatchObject({ kind: 'error', error: 'blocked', message: 'must use https' });
    expect(looked).toEqual([]);
    await sender.close();
  });

  it('connects to the address the checked lookup returned (the resolution is pinned)', async () => {
    const receiver = await startReceiver();
    const sender = new UndiciWebhookSender({
      policy: { allowPrivate: true },
      resolve: async (host) =>
        host === 'receiver.test' ? [{ address: '127.0.0.1', family: 4 }] : [],
      clock: systemClock,
      timeoutMs: 2000,
    });
    const own = new URL(receiver.url('/in'));
    own.hostname = 'receiver.test';
    const result = await sender.send({
      url: own.href,
      headers: {},
      body: '{}',
    });
    expect(result).toMatchObject({ kind: 'response', status: 200 });
    expect(receiver.log.map((r) => r.path)).toEqual(['/in']);
    await sender.close();
    await receiver.close();
  });
});
