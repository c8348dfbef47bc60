import { describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import type { HostResolver, ResolvedAddress } from '../../shared/dns/system-resolver.ts';
import { UndiciWebhookSender } from '../../shared/webhooks/http-sender.ts';
import { startReceiver } from './support/receiver.ts';

/*
 * The system resolver is getaddrinfo, which runs on libuv's threadpool (4 threads, shared with
 * the file system, zlib and crypto). A subscriber whose DNS stops answering held one of those
 * threads per request for the resolver's whole timeout, so a handful of its deliveries in flight
 * took every thread: other subscribers' lookups waited behind them, past their own timeout.
 */

/** A resolver that answers after `delayMs`, counting the lookups it was asked for by host. */
function countingResolver(answers: ResolvedAddress[][], delayMs: number) {
  const calls: string[] = [];
  const resolve: HostResolver = (hostname) => {
    calls.push(hostname);
    const answer = answers[Math.min(calls.length, answers.length) - 1]!;
    return new Promise((settle, fail) =>
      setTimeout(
        () =>
          answer.length > 0 ? settle(answer) : fail(new Error(`EAI_AGAIN ${hostname} (test)`)),
        delayMs,
      ),
    );
  };
  return { resolve, calls };
}

describe('webhook sender host lookups', () => {
  it('looks a host up once for the requests that connect to it at once, not once per request', async () => {
    const receiver = await startReceiver();
    const lookups = countingResolver([[{ address: '127.0.0.1', family: 4 }]], 200);
    const sender = new UndiciWebhookSender({
      policy: { allowPrivate: true },
      resolve: lookups.resolve,
      clock: systemClock,
      timeoutMs: 5_000,
    });
    const url = new URL(receiver.url('/in'));
    url.hostname = 'slow-dns.test';
    const results = await Promise.all(
      Array.from({ length: 16 }, () => sender.send({ url: url.href, headers: {}, body: '{}' })),
    );
    expect(results.map((result) => result.kind === 'response' && result.status)).toEqual(
      Array(16).fill(200),
    );
    expect(receiver.log).toHaveLength(16);
    expect(lookups.calls).toEqual(['slow-dns.test']);
    await sender.close();
    await receiver.close();
  });

  it('looks the host up again once a shared lookup has failed, keeping no answer', async () => {
    const receiver = await startReceiver();
    const lookups = countingResolver([[], [{ address: '127.0.0.1', family: 4 }]], 50);
    const sender = new UndiciWebhookSender({
      policy: { allowPrivate: true },
      resolve: lookups.resolve,
      clock: systemClock,
      timeoutMs: 5_000,
    });
    const url = new URL(receiver.url('/in'));
    url.hostname = 'flaky-dns.test';
    const send = () => sender.send({ url: url.href, headers: {}, body: '{}' });
    const failed = await Promise.all([send(), send()]);
    expect(failed.map((result) => result.kind === 'error' && result.error)).toEqual([
      'network',
      'network',
    ]);
    expect(lookups.calls).toHaveLength(1);
    expect(await send()).toMatchObject({ kind: 'response', status: 200 });
    expect(lookups.calls).toEqual(['flaky-dns.test', 'flaky-dns.test']);
    await sender.close();
    await receiver.close();
  });

  it('fails a request whose host resolves to no address, as a network error that names it', async () => {
    const receiver = await startReceiver();
    const sender = new UndiciWebhookSender({
      policy: { allowPrivate: true },
      resolve: async () => [],
      clock: systemClock,
      timeoutMs: 5_000,
    });
    const url = new URL(receiver.url('/in'));
    url.hostname = 'no-address.test';
    const result = await sender.send({ url: url.href, headers: {}, body: '{}' });
    expect(result).toMatchObject({
      kind: 'error',
      error: 'network',
      message: expect.stringContaining('host no-address.test does not resolve'),
    });
    expect(receiver.log).toHaveLength(0);
    await sender.close();
    await receiver.close();
  });
});
