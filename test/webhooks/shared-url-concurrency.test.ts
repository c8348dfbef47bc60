import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { endpointOfUrl } from '../../shared/webhooks/endpoint-of-url.ts';
import { EndpointScheduler } from '../../shared/webhooks/endpoint-scheduler.ts';
import { sharedEndpointSettings } from '../../shared/webhooks/endpoint-settings.ts';
import { MemoryEndpointSlots } from '../../shared/webhooks/endpoint-slots.ts';
import { MemoryWebhookStore } from '../../shared/webhooks/memory-store.ts';
import { startRealTimeFixture } from './support/fixture.ts';
import { changeEvent, createHarness, envelope, eventIdOf } from './support/harness.ts';
import { peakInFlight } from './support/peak-in-flight.ts';
import { type ReceivedRequest, type ReceiverAction, verifyWithAll } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A receiver at `/shared` answering every request in `delayMs`, noting when each was in flight. */
function timedReceiver(delayMs: number, answer: (request: ReceivedRequest) => number = () => 200) {
  const spans: {
    start: number;
    end: number;
    path: string;
    id: string | undefined;
    request: ReceivedRequest;
  }[] = [];
  const decide = (request: ReceivedRequest): ReceiverAction => {
    spans.push({
      start: request.at,
      end: request.at + delayMs,
      path: request.path,
      id: request.headers['webhook-id'],
      request,
    });
    return { kind: 'respond', status: answer(request), delayMs };
  };
  return { spans, decide };
}

/**
 * Two (or more) subscriptions that post to one URL (one per team, one per event family) reach
 * one receiver: README's "up to 16 deliveries in flight to one endpoint" is about that receiver,
 * as its Retry-After rule is ("for every subscription that posts to its URL"), so the limit and
 * its adaptation are the URL's, shared by the subscriptions to it.
 */
describe('the concurrency of a URL several subscriptions post to', () => {
  // On a loaded machine requests reach the receiver later and spread out, and a line judged slow
  // defers some deliveries past the drain: load lowers what is seen in flight, never raises it,
  // so the limits are checked as upper bounds, and the lower bounds only show work went at once.
  it('keeps two subscriptions to one URL within 16 in flight together', async () => {
    const { spans, decide } = timedReceiver(400);
    const { harness, subscribe } = await setup(decide);
    await subscribe('/shared');
    await subscribe('/shared');
    for (let n = 0; n < 24; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    await harness.drainVisible(24);
    expect(spans.length).toBeGreaterThan(24);
    const peak = peakInFlight(spans);
    expect(peak).toBeLessThanOrEqual(16);
    expect(peak).toBeGreaterThanOrEqual(8);
  }, 20_000);

  it('keeps ten subscriptions to one URL within 16 together, while another URL keeps its own 16', async () => {
    const { spans, decide } = timedReceiver(400);
    const { harness, subscribe } = await setup(decide);
    for (let n = 0; n < 10; n++) await subscribe('/shared');
    await subscribe('/elsewhere');
    for (let n = 0; n < 16; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    await harness.drainVisible(16);
    const shared = spans.filter((s) => s.path === '/shared');
    const elsewhere = spans.filter((s) => s.path === '/elsewhere');
    expect(shared.length).toBeGreaterThan(16);
    expect(peakInFlight(shared)).toBeLessThanOrEqual(16);
    // The other URL's 16 are its own: the 160 waiting at the shared one do not hold them.
    expect(elsewhere).toHaveLength(16);
    expect(peakInFlight(elsewhere)).toBeGreaterThanOrEqual(8);
  }, 20_000);

  it('halves the URL’s limit for both subscriptions when one of them is answered 503', async () => {
    // Event 1 (a customer.created) goes to the first subscription only and is answered 503
    // (no Retry-After: no pause, an overload); the updates after it go to the second only.
    const { spans, decide } = timedReceiver(200, (request) =>
      request.headers['webhook-id'] === eventIdOf(1) ? 503 : 200,
    );
    const { harness, subscribe } = await setup(decide);
    const { subscription } = await subscribe('/shared', { events: ['customer.created'] });
    await subscribe('/shared', { events: ['customer.updated'] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1), { type: 'customer.created' })));
    await harness.drainVisible();
    const limitAfter503 = harness.deps.scheduler.limitOf(endpointOfUrl(subscription.url));
    for (let n = 2; n < 26; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    await harness.drainVisible(24);
    const updates = spans.filter((s) => s.id !== eventIdOf(1));
    expect(updates.length).toBeGreaterThan(16);
    // The first wave (sent before any of them could be answered) is the halved limit, 8, not
    // 16; successes then add one back at a time (8 in a row make 9, 9 more make 10).
    const firstAt = Math.min(...updates.map((s) => s.start));
    expect(updates.filter((s) => s.start < firstAt + 200).length).toBeLessThanOrEqual(8);
    expect(peakInFlight(updates)).toBeLessThanOrEqual(10);
    expect(limitAfter503).toBe(8);
  }, 20_000);

  it('takes the smallest maxConcurrency set by the subscriptions to one URL', async () => {
    const { spans, decide } = timedReceiver(200);
    const { harness, subscribe } = await setup(decide);
    const { subscription } = await subscribe('/shared', { maxConcurrency: 4 });
    await subscribe('/shared');
    await subscribe('/shared', { maxConcurrency: 64 });
    for (let n = 0; n < 8; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    await harness.drainVisible(8);
    expect(spans.length).toBeGreaterThan(4);
    expect(peakInFlight(spans)).toBeLessThanOrEqual(4);
    expect(harness.deps.scheduler.limitOf(endpointOfUrl(subscription.url))).toBe(4);
  }, 20_000);

  it('takes the smallest maxConcurrency that is set, whatever the subscriptions that set none', async () => {
    // One subscription asks for 32, the other says nothing (16 by default): the receiver
    // was declared able to take 32, and the subscription with no setting has no opinion.
    const { spans, decide } = timedReceiver(0);
    const { harness, subscribe } = await setup(decide);
    const { subscription } = await subscribe('/shared', { maxConcurrency: 32 });
    await subscribe('/shared');
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1))));
    await harness.drainVisible();
    expect(spans).toHaveLength(2);
    expect(harness.deps.scheduler.limitOf(endpointOfUrl(subscription.url))).toBe(32);
  }, 20_000);

  it('keeps the smallest rate limit set by the subscriptions to one URL, over both', async () => {
    const { spans, decide } = timedReceiver(0);
    const { harness, subscribe } = await setup(decide);
    await subscribe('/shared', { rateLimitPerSecond: 20 });
    await subscribe('/shared');
    for (let n = 0; n < 10; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    await harness.drainVisible(10);
    expect(spans).toHaveLength(20);
    // 20 requests at 20 a second: about a second from the first to the last, not half of one.
    const starts = spans.map((s) => s.start);
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThanOrEqual(850);
  }, 20_000);

  it('keeps a subject’s order per subscription while the two share the URL’s slots', async () => {
    const { spans, decide } = timedReceiver(30);
    const { harness, subscribe } = await setup(decide);
    const first = await subscribe('/shared', { maxConcurrency: 4 });
    const second = await subscribe('/shared');
    for (let n = 0; n < 20; n++) {
      const subject = n % 4 === 0 ? 'c-same' : `c-other-${n}`;
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n), { subject })));
    }
    await harness.drainVisible(20);
    expect(spans).toHaveLength(40);
    const same = [0, 4, 8, 12, 16].map((n) => eventIdOf(n));
    for (const { secret } of [first, second]) {
      const sent = spans.filter(
        (s) => verifyWithAll([secret], s.request.body, s.request.headers) === 1,
      );
      expect(sent).toHaveLength(20);
      const ofSame = sent.filter((s) => same.includes(s.id!));
      expect(ofSame.map((s) => s.id)).toEqual(same);
      // One at a time: each started once the one before it was answered.
      for (let i = 1; i < ofSame.length; i++)
        expect(ofSame[i]!.start).toBeGreaterThanOrEqual(ofSame[i - 1]!.end - 5);
    }
    expect(peakInFlight(spans)).toBeLessThanOrEqual(4);
  }, 20_000);
});

describe('the concurrency of a URL across processes (AWS: dispatcher containers)', () => {
  it('keeps two subscriptions to one URL within 16 over two processes sharing slots', async () => {
    const { spans, decide } = timedReceiver(150);
    const store = new MemoryWebhookStore();
    const slots = new MemoryEndpointSlots(systemClock);
    const { harness: first, subscribe } = await setup(decide, {
      store,
      scheduler: new EndpointScheduler(systemClock, slots.holder('a')),
    });
    const second = createHarness({
      clock: systemClock,
      store,
      scheduler: new EndpointScheduler(systemClock, slots.holder('b')),
    });
    cleanup.push(() => second.sender.close());
    await subscribe('/shared');
    await subscribe('/shared');
    for (let n = 0; n < 32; n++) {
      const harness = n % 2 === 0 ? first : second;
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    }
    await Promise.all([first.drainVisible(16), second.drainVisible(16)]);
    expect(spans.length).toBeGreaterThan(32);
    expect(peakInFlight(spans)).toBeLessThanOrEqual(16);
  }, 20_000);
});

const setup = (
  decide: (request: ReceivedRequest) => ReceiverAction,
  options: Parameters<typeof createHarness>[0] = {},
) => startRealTimeFixture(cleanup, decide, options);

describe('sharedEndpointSettings', () => {
  it('takes the smallest maxConcurrency and rate set, and leaves out what none sets', () => {
    expect(sharedEndpointSettings([{ maxConcurrency: 4 }, {}, { maxConcurrency: 64 }])).toEqual({
      maxConcurrency: 4,
    });
    expect(
      sharedEndpointSettings([{ rateLimitPerSecond: 50 }, { rateLimitPerSecond: 20 }, {}]),
    ).toEqual({ ratePerSecond: 20 });
    expect(sharedEndpointSettings([{}, {}])).toEqual({});
  });

  it('names one endpoint per URL, by a hash that does not show the URL', () => {
    const url = 'https://hooks.example/in?token=secret-token';
    expect(endpointOfUrl(url)).toBe(endpointOfUrl(url));
    expect(endpointOfUrl(url)).not.toBe(endpointOfUrl(`${url}x`));
    expect(endpointOfUrl(url)).not.toContain('secret-token');
    expect(endpointOfUrl(url)).not.toContain('hooks.example');
  });
});
