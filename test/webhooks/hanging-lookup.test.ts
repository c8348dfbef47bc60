import { describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import type { HostResolver } from '../../shared/dns/system-resolver.ts';
import { UndiciWebhookSender } from '../../shared/webhooks/http-sender.ts';
import { startReceiver } from './support/receiver.ts';

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
