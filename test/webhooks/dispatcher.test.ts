import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { MemoryWebhookStore } from '../../shared/webhooks/memory-store.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, type createHarness, envelope, eventIdOf } from './support/harness.ts';
import type { ReceivedRequest, Receiver, ReceiverAction } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function setup(
  decide?: (request: { path: string }) => ReceiverAction,
  options: Parameters<typeof createHarness>[0] = {},
) {
  return startDispatchFixture(cleanup, decide, options);
}

const allVerified = (receiver: Receiver) =>
  receiver.log.every((r) => r.verifiedWith === (receiver.secrets.get(r.path)?.length ?? -1));

describe('dispatcher', () => {
  it('fans an event out to each matching subscription as a signed POST of the event as received', async () => {
    const { receiver, harness, subscribe } = await setup();
    await subscribe('/all');
    await subscribe('/customers', { events: ['customer.*'] });
    await subscribe('/resources', { events: ['resource.*'] });
    await subscribe('/chain-9', { scope: { chainIds: ['chain-9'] } });
    const event = changeEvent(eventIdOf(1));
    harness.queue.sendRaw(envelope(event));
    await harness.drainVisible();
    expect(receiver.log.map((r) => r.path).sort()).toEqual(['/all', '/customers']);
    expect(allVerified(receiver)).toBe(true);
    for (const request of receiver.log) {
      expect(request.headers['webhook-id']).toBe(eventIdOf(1));
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toBe('change-bridge-webhooks/1');
      expect(request.body).toBe(JSON.stringify(event));
    }
    expect(harness.metrics.counts.delivered).toBe(2);
  });

  it('creates no second delivery when the same envelope arrives twice', async () => {
    const { receiver, harness, subscribe } = await setup();
    await subscribe('/a');
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(2))));
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(2))));
    await harness.drainVisible();
    expect(receiver.log).toHaveLength(1);
    expect(await harness.store.listDeliveries({ eventId: eventIdOf(2), limit: 10 })).toHaveLength(
      1,
    );
  });

  it('drops a malformed message without failing the batch and reports storage failures for retry', async () => {
    const { harness, subscribe } = await setup();
    await subscribe('/a');
    const result = await processDispatchBatch(
      [
        { messageId: 'm1', body: 'not json' },
        { messageId: 'm2', body: JSON.stringify({ kind: 'delivery' }) },
      ],
      harness.deps,
    );
    expect(result.batchItemFailures).toEqual([]);
    expect(harness.metrics.counts.malformed).toBe(2);
    harness.deps.store.putFanOuts = async () => {
      throw new Error('table unavailable');
    };
    const failed = await processDispatchBatch(
      [{ messageId: 'm3', body: envelope(changeEvent(eventIdOf(3))) }],
      harness.deps,
    );
    expect(failed.batchItemFailures).toEqual([{ itemIdentifier: 'm3' }]);
  });

  it('disables the subscription on 410, publishes subscription.disabled and keeps the delivery for replay', async () => {
    const { receiver, harness, subscribe } = await setup((r) =>
      r.path === '/gone' ? { kind: 'respond', status: 410 } : { kind: 'respond', status: 200 },
    );
    const gone = await subscribe('/gone');
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(4))));
    await harness.drainVisible();
    const subscription = await harness.service.getSubscription(gone.subscription.id);
    expect(subscription.enabled).toBe(false);
    expect(subscription.disabledReason).toMatch(/410/);
    expect(harness.sink.events.map((e) => [e.type, e.subject])).toEqual([
      ['subscription.disabled', gone.subscription.id],
    ]);
    const [delivery] = await harness.store.listDeliveries({
      subscriptionId: gone.subscription.id,
      limit: 5,
    });
    expect(delivery).toMatchObject({ status: 'dead', attempts: 1 });
    expect(await harness.store.listDeadLetters(gone.subscription.id, 0)).toEqual([delivery!.id]);
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(5))));
    await harness.drainVisible();
    expect(receiver.log).toHaveLength(1);
  });

  it('delivers to a healthy subscription on time while another endpoint hangs', async () => {
    // For each request to /healthy, whether a hanging request had been given up when it arrived.
    const healthyAfterTimeout: boolean[] = [];
    const { receiver, harness, subscribe } = await setup(
      (r) => {
        if (r.path === '/hangs') return { kind: 'hang' };
        healthyAfterTimeout.push(receiver.abandoned.length > 0);
        return { kind: 'respond', status: 200 };
      },
      { timeoutMs: 1000 },
    );
    const hanging = await subscribe('/hangs');
    await subscribe('/healthy');
    const started = Date.now();
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(6))));
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(7))));
    await harness.drainVisible();
    const finished = Date.now();
    const healthy = receiver.log.filter((r) => r.path === '/healthy');
    expect(healthy.map((r) => r.headers['webhook-id']).sort()).toEqual([
      eventIdOf(6),
      eventIdOf(7),
    ]);
    // The healthy endpoint got both events before the hanging one's first timeout, which the
    // batch waited for.
    expect(healthyAfterTimeout).toEqual([false, false]);
    expect(finished - started).toBeGreaterThanOrEqual(1000);
    const stuck = await harness.service.listDeliveries({ subscriptionId: hanging.subscription.id });
    expect(stuck.map((d) => d.delivery.status)).toEqual(['pending', 'pending']);
    expect(stuck[0]?.attempts[0]?.error).toMatch(/^timeout/);
  });

  it('pauses the whole endpoint after 429 with Retry-After and sends nothing to it before then', async () => {
    let answered429 = false;
    const { receiver, harness, subscribe, clock } = await setup((r) => {
      if (r.path === '/busy' && !answered429) {
        answered429 = true;
        return { kind: 'respond', status: 429, headers: { 'retry-after': '120' } };
      }
      return { kind: 'respond', status: 200 };
    });
    // One at a time, so the requests after the 429 are the ones that must wait.
    await subscribe('/busy', { maxConcurrency: 1 });
    for (let n = 10; n < 15; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    await harness.drainVisible();
    expect(receiver.log).toHaveLength(1);
    expect(harness.metrics.counts.deferred).toBe(4);
    await clock.advance(119_000);
    await harness.drainVisible();
    expect(receiver.log).toHaveLength(1);
    await clock.advance(1_000);
    await harness.drainVisible();
    expect(receiver.log).toHaveLength(6);
    expect(new Set(receiver.log.slice(1).map((r) => r.headers['webhook-id'])).size).toBe(5);
    expect(allVerified(receiver)).toBe(true);
  });

  it('pauses the endpoint on a 429 with Retry-After that answers the last attempt of a delivery', async () => {
    const { receiver, harness, subscribe, clock } = await setup((r) => {
      const id = (r as ReceivedRequest).headers['webhook-id'];
      if (id === eventIdOf(1)) {
        return { kind: 'respond', status: 429, headers: { 'retry-after': '120' } };
      }
      return { kind: 'respond', status: 200 };
    });
    const { subscription } = await subscribe('/busy', { retrySchedule: [10_000] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1))));
    await harness.drainVisible();
    // The retry, due after the pause, is the last attempt the schedule allows: it meets a 429 again.
    await clock.advance(120_000);
    await harness.drainVisible();
    const [dead] = await harness.store.listDeliveries({
      subscriptionId: subscription.id,
      limit: 5,
    });
    expect(dead).toMatchObject({ status: 'dead', attempts: 2 });
    // The endpoint asked for 120 s more: another event waits for them.
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(2))));
    await harness.drainVisible();
    expect(receiver.log.map((r) => r.headers['webhook-id'])).toEqual([eventIdOf(1), eventIdOf(1)]);
    expect((await harness.store.getEndpointState(subscription.id))?.pausedUntil).toBe(
      clock.now() + 120_000,
    );
    await clock.advance(120_000);
    await harness.drainVisible();
    expect(receiver.log.map((r) => r.headers['webhook-id'])).toEqual([
      eventIdOf(1),
      eventIdOf(1),
      eventIdOf(2),
    ]);
  });

  it('sends no retry when a 429 pauses the endpoint while the retry reads its event', async () => {
    const store = new MemoryWebhookStore();
    const { receiver, harness, subscribe, clock } = await setup(
      (r) => {
        const id = (r as ReceivedRequest).headers['webhook-id'];
        if (id === eventIdOf(2))
          return { kind: 'respond', status: 429, headers: { 'retry-after': '120' } };
        return { kind: 'respond', status: id === eventIdOf(1) ? 500 : 200 };
      },
      { store },
    );
    await subscribe('/busy', { retrySchedule: [10_000] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1))));
    await harness.drainVisible();
    await clock.advance(15_000);
    // The retry's read of its stored event is held while another batch meets the 429.
    const readEvent = store.getEvent.bind(store);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reading = false;
    store.getEvent = async (id) => {
      reading = true;
      await held;
      return readEvent(id);
    };
    const retry = processDispatchBatch(harness.queue.receive(10), harness.deps);
    while (!reading) await systemClock.sleep(5);
    await processDispatchBatch(
      [{ messageId: 'm2', body: envelope(changeEvent(eventIdOf(2))) }],
      harness.deps,
    );
    release();
    await retry;
    expect(receiver.log.map((r) => r.headers['webhook-id'])).toEqual([eventIdOf(1), eventIdOf(2)]);
    expect(harness.metrics.counts.deferred).toBe(1);
  });

  it('keeps a stored pause when a batch that read the endpoint before it records a success', async () => {
    const { receiver, harness, subscribe, clock } = await setup((r) => {
      const id = (r as ReceivedRequest).headers['webhook-id'];
      if (id === eventIdOf(1)) return { kind: 'respond', status: 500 };
      if (id === eventIdOf(2))
        return { kind: 'respond', status: 429, headers: { 'retry-after': '120' } };
      return { kind: 'respond', status: 200, delayMs: 300 };
    });
    const { subscription } = await subscribe('/busy');
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1))));
    await harness.drainVisible();
    // This batch reads the endpoint (one failure, no pause) and waits 300 ms for its answer.
    const slow = processDispatchBatch(
      [{ messageId: 'm3', body: envelope(changeEvent(eventIdOf(3))) }],
      harness.deps,
    );
    while (receiver.log.length < 2) await systemClock.sleep(5);
    await processDispatchBatch(
      [{ messageId: 'm2', body: envelope(changeEvent(eventIdOf(2))) }],
      harness.deps,
    );
    await slow;
    const stored = await harness.store.getEndpointState(subscription.id);
    expect(stored?.consecutiveFailures).toBe(0);
    expect(stored?.pausedUntil).toBeGreaterThanOrEqual(clock.now() + 119_000);
  });

  it('retries on the schedule, logs every attempt and dead-letters after the last one', async () => {
    const { receiver, harness, subscribe, clock } = await setup(() => ({
      kind: 'respond',
      status: 500,
      headers: { 'x-trace': 'abc' },
      body: 'x'.repeat(10_000),
    }));
    const { subscription } = await subscribe('/down', { retrySchedule: [10_000, 60_000] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(20))));
    await harness.drainVisible();
    await clock.advance(7_000);
    await harness.drainVisible();
    expect(receiver.log).toHaveLength(1);
    await clock.advance(6_000);
    await harness.drainVisible();
    expect(receiver.log).toHaveLength(2);
    await clock.advance(75_000);
    await harness.drainVisible();
    expect(receiver.log).toHaveLength(3);
    expect(new Set(receiver.log.map((r) => r.headers['webhook-id']))).toEqual(
      new Set([eventIdOf(20)]),
    );
    expect(allVerified(receiver)).toBe(true);
    const [entry] = await harness.service.listDeliveries({ subscriptionId: subscription.id });
    expect(entry?.delivery).toMatchObject({
      status: 'dead',
      attempts: 3,
      deadReason: 'no success after 3 attempts',
    });
    expect(entry?.attempts.map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, 500, 'retry'],
      [2, 500, 'retry'],
      [3, 500, 'rejected'],
    ]);
    const first = entry!.attempts[0]!;
    expect(first.responseBody).toHaveLength(4096);
    expect(first.responseHeaders['x-trace']).toBe('abc');
    expect(first.nextAttemptAt! - first.at).toBeGreaterThanOrEqual(8_000);
    expect(first.nextAttemptAt! - first.at).toBeLessThanOrEqual(12_000);
    expect(harness.metrics.counts.deadLettered).toBe(1);
  });

  it('names only the endpoint origin in operational events, which every subscriber to them receives', async () => {
    let failuresLeft = 4;
    const { receiver, harness, subscribe, clock } = await setup((r) =>
      r.path.startsWith('/gone')
        ? { kind: 'respond', status: 410 }
        : failuresLeft-- > 0
          ? { kind: 'respond', status: 502 }
          : { kind: 'respond', status: 200 },
    );
    await subscribe('/flaky/T0/path-secret?token=query-secret', {
      retrySchedule: [1000, 1000, 1000, 1000, 1000],
    });
    await subscribe('/gone/other-path-secret?sig=other-query-secret');
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(31))));
    await harness.drainVisible();
    for (let i = 0; i < 5; i++) {
      await clock.advance(2_000);
      await harness.drainVisible();
    }
    // Recovered after 4 successes in a row: the retry and three more events.
    for (const n of [32, 33, 34]) {
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
      await harness.drainVisible();
    }
    expect(harness.sink.events.map((e) => e.type).sort()).toEqual([
      'delivery.failing',
      'delivery.recovered',
      'subscription.disabled',
    ]);
    const origin = new URL(receiver.url('/')).origin;
    for (const event of harness.sink.events) {
      expect(event.data.url).toBe(origin);
      expect(JSON.stringify(event)).not.toMatch(/secret/);
    }
  });

  it('publishes delivery.failing after 4 failures, delivery.recovered after 4 successes in a row', async () => {
    let failuresLeft = 4;
    const { harness, subscribe, clock } = await setup(() =>
      failuresLeft-- > 0 ? { kind: 'respond', status: 502 } : { kind: 'respond', status: 200 },
    );
    const { subscription } = await subscribe('/flaky', {
      retrySchedule: [1000, 1000, 1000, 1000, 1000],
    });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(30))));
    await harness.drainVisible();
    for (let i = 0; i < 5; i++) {
      await clock.advance(2_000);
      await harness.drainVisible();
    }
    expect(harness.sink.events.map((e) => e.type)).toEqual(['delivery.failing']);
    // The retry was the first success; three more events make the 4 in a row.
    for (const n of [35, 36, 37]) {
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
      await harness.drainVisible();
    }
    expect(harness.sink.events.map((e) => e.type)).toEqual([
      'delivery.failing',
      'delivery.recovered',
    ]);
    expect(harness.sink.events[0]?.data).toMatchObject({
      subscriptionId: subscription.id,
      consecutiveFailures: 4,
    });
    expect(harness.sink.events[0]?.source).toBe('change-bridge');
  });

  it('counts the successes of a batch that read the endpoint healthy before another batch made it failing', async () => {
    const failing = new Set([50, 51, 52, 53].map(eventIdOf));
    // The failures are answered at once, the successes a moment later: by then the other batch
    // has announced the endpoint failing, while this one still holds its healthy copy.
    const { harness, subscribe } = await setup((request) =>
      failing.has((request as ReceivedRequest).headers['webhook-id'] ?? '')
        ? { kind: 'respond', status: 502 }
        : { kind: 'respond', status: 200, delayMs: 200 },
    );
    await subscribe('/flaky-batches');
    const records = (numbers: number[]) =>
      numbers.map((n) => ({ messageId: `m-${n}`, body: envelope(changeEvent(eventIdOf(n))) }));
    await Promise.all([
      processDispatchBatch(records([54, 55, 56, 57]), harness.deps),
      processDispatchBatch(records([50, 51, 52, 53]), harness.deps),
    ]);
    expect(harness.sink.events.map((e) => e.type)).toEqual([
      'delivery.failing',
      'delivery.recovered',
    ]);
  });

  it('disables a subscription failing without success for the configured time', async () => {
    const { harness, subscribe, clock } = await setup(() => ({ kind: 'respond', status: 500 }), {
      config: { disableAfterMs: 60_000 },
    });
    const { subscription } = await subscribe('/dead', { retrySchedule: [40_000, 40_000, 40_000] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(40))));
    await harness.drainVisible();
    for (let i = 0; i < 3; i++) {
      await clock.advance(50_000);
      await harness.drainVisible();
    }
    expect((await harness.service.getSubscription(subscription.id)).enabled).toBe(false);
    expect(harness.sink.events.filter((e) => e.type === 'subscription.disabled')).toHaveLength(1);
  });

  it('signs with the old and the new secret during a rotation, and with the new one after', async () => {
    const { receiver, harness, subscribe, clock } = await setup();
    const created = await subscribe('/rotating');
    const rotated = await harness.service.rotateSecret(created.subscription.id, 60_000);
    receiver.secrets.set('/rotating', [created.secret, rotated.secret]);
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(50))));
    await harness.drainVisible();
    expect(receiver.log.map((r) => r.verifiedWith)).toEqual([2]);
    await clock.advance(60_000);
    receiver.secrets.set('/rotating', [rotated.secret]);
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(51))));
    await harness.drainVisible();
    expect(receiver.log.map((r) => r.verifiedWith)).toEqual([2, 1]);
    expect(receiver.log[1]?.headers['webhook-signature']?.split(' ')).toHaveLength(1);
  });
});
