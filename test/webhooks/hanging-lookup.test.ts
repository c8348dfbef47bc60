import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { createHostResolver } from '../../shared/dns/host-resolver.ts';
import type { HostsTable } from '../../shared/dns/hosts-file.ts';
import type { HostResolver } from '../../shared/dns/system-resolver.ts';
import { UndiciWebhookSender } from '../../shared/webhooks/http-sender.ts';
import { type DnsTestServer, startDnsTestServer } from '../support/dns-server.ts';
import { type Receiver, startReceiver } from './support/receiver.ts';

let dns: DnsTestServer | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await dns?.close();
  await receiver?.close();
  dns = undefined;
  receiver = undefined;
});

/*
 * A lookup cannot be cancelled (getaddrinfo), and undici settles a request cut off while its
 * connection waits for one only once the lookup ends: a subscriber's DNS that hangs (glibc's
 * default is 5 s a try, 2 tries, more with more name servers) held the request past its timeout
 * and `start`'s stop past its 2 s for requests in flight.
 */

/** A resolver whose one lookup answers 127.0.0.1 after `delayMs`; `answered` settles then. */
function lateResolver(delayMs: number) {
  let answer!: () => void;
  const answered = new Promise<void>((settle) => {
    answer = settle;
  });
  const resolve: HostResolver = () =>
    new Promise((settle) =>
      setTimeout(() => {
        settle([{ address: '127.0.0.1', family: 4 }]);
        answer();
      }, delayMs),
    );
  return { resolve, answered };
}

describe('webhook sender while a host lookup hangs', () => {
  it('answers timeout at the request timeout, not when the lookup ends, and sends nothing after', async () => {
    const receiver = await startReceiver();
    const lookup = lateResolver(1_500);
    const sender = new UndiciWebhookSender({
      policy: { allowPrivate: true },
      resolve: lookup.resolve,
      clock: systemClock,
      timeoutMs: 300,
    });
    const url = new URL(receiver.url('/in'));
    url.hostname = 'hanging-dns.test';
    const result = await sender.send({ url: url.href, headers: {}, body: '{}' });
    expect(result).toMatchObject({ kind: 'error', error: 'timeout' });
    expect(result.latencyMs).toBeLessThan(1_000);
    await lookup.answered;
    await sender.close();
    expect(receiver.log).toHaveLength(0);
    await receiver.close();
  });

  it('answers stopped as soon as the sender stops, not when the lookup ends, and sends nothing after', async () => {
    const receiver = await startReceiver();
    const lookup = lateResolver(1_500);
    const stop = new AbortController();
    const sender = new UndiciWebhookSender({
      policy: { allowPrivate: true },
      resolve: lookup.resolve,
      clock: systemClock,
      timeoutMs: 15_000,
      stopSignal: stop.signal,
    });
    const url = new URL(receiver.url('/in'));
    url.hostname = 'hanging-dns.test';
    const sent = sender.send({ url: url.href, headers: {}, body: '{}' });
    setTimeout(() => stop.abort(), 100);
    const result = await sent;
    expect(result.kind).toBe('stopped');
    expect(result.latencyMs).toBeLessThan(1_000);
    await lookup.answered;
    await sender.close();
    expect(receiver.log).toHaveLength(0);
    await receiver.close();
  });
});

/**
 * A resolver asking `dnsServer` (silent for `silent.test`) after a hosts file listing
 * `listed.test` as 127.0.0.1; the system resolver is never asked.
 */
function hostsOn(dnsServer: DnsTestServer) {
  const listed: HostsTable = new Map([['listed.test', [{ address: '127.0.0.1', family: 4 }]]]);
  return createHostResolver({
    readHosts: async () => listed,
    servers: [dnsServer.address],
    fallback: async (hostname) => {
      throw new Error(`the system resolver was asked for ${hostname}`);
    },
    timeoutMs: 600_000,
    tries: 1,
  });
}

/**
 * A sender resolving through {@link hostsOn} a DNS test server (`dns`, answering nothing), and
 * the URL of `receiver`'s `/in` under `hostname`.
 */
async function senderTo(at: Receiver, hostname: string) {
  dns = await startDnsTestServer({});
  const hosts = hostsOn(dns);
  const sender = new UndiciWebhookSender({
    policy: { allowPrivate: true },
    resolve: hosts.resolve,
    clock: systemClock,
    timeoutMs: 600_000,
  });
  const url = new URL(at.url('/in'));
  url.hostname = hostname;
  return { hosts, sender, url };
}

// `start`'s stop ends the sender's lookups first: a request whose connection still waits for
// one has sent nothing, so it ends at once as no attempt, not at the 2 s cut-off for requests
// sent; a request already sent is left to be answered.
describe('webhook sender whose host resolver stops', () => {
  it('answers stopped at once for a request waiting for its lookup, and sends nothing after', async () => {
    receiver = await startReceiver();
    const { hosts, sender, url } = await senderTo(receiver, 'silent.test');
    dns?.silentNames.add('silent.test');
    const sent = sender.send({ url: url.href, headers: {}, body: '{}' });
    await vi.waitFor(() => expect(dns?.questions).toHaveLength(2));
    const stoppedAt = Date.now();
    hosts.stop();
    const result = await sent;
    expect(result.kind).toBe('stopped');
    expect(Date.now() - stoppedAt).toBeLessThan(1_000);
    // Refused from now on too, as no attempt.
    expect((await sender.send({ url: url.href, headers: {}, body: '{}' })).kind).toBe('stopped');
    await sender.close();
    expect(receiver.log).toHaveLength(0);
  });

  it('leaves a request already sent to be answered', async () => {
    let answer!: () => void;
    const answerWhen = new Promise<void>((settle) => {
      answer = settle;
    });
    receiver = await startReceiver(() => ({ kind: 'respond', status: 204, answerWhen }));
    const { hosts, sender, url } = await senderTo(receiver, 'listed.test');
    const sent = sender.send({ url: url.href, headers: {}, body: '{}' });
    await vi.waitFor(() => expect(receiver?.log).toHaveLength(1));
    hosts.stop();
    answer();
    expect(await sent).toMatchObject({ kind: 'response', status: 204 });
    await sender.close();
  });
});
