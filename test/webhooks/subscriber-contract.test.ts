import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SubscriptionDisabledEventSchema } from '../../shared/changes/operational-events.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, envelope, eventIdOf } from './support/harness.ts';
import type { ReceivedRequest } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const idOf = (request: ReceivedRequest) => request.headers['webhook-id'];

/** Whether the official library accepts `request` under `secret` at the bridge clock's time. */
function verifiesWith(secret: string, request: ReceivedRequest, nowMs: number): boolean {
  vi.useFakeTimers({ toFake: ['Date'], now: nowMs });
  try {
    new Webhook(secret).verify(request.body, request.headers);
    return true;
  } catch {
    return false;
  } finally {
    vi.useRealTimers();
  }
}

describe('a webhook request as a subscriber sees it', () => {
  it('carries the Standard Webhooks headers and the event body exactly as signed', async () => {
    const { receiver, harness, subscribe, clock } = await startDispatchFixture(cleanup);
    const { secret } = await subscribe('/hook');
    // Keys in an unusual order, non-ASCII text and a line separator: no re-serialisation may change them.
    const event = changeEvent(eventIdOf(1));
    const data = event.data as Record<string, unknown>;
    data.current = { Zeta: 'Zoë 🏨', Alpha: 'line\u2028sep', Id: 'c-1', N: 1.5e-7 };
    harness.queue.sendRaw(envelope(event));
    await harness.drainVisible();

    expect(receiver.log).toHaveLength(1);
    const request = receiver.log[0]!;
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-id']).toBe(event.id);
    expect(request.headers['webhook-timestamp']).toBe(String(Math.floor(clock.now() / 1000)));
    expect(request.headers['webhook-timestamp']).toMatch(/^[1-9][0-9]*$/);
    expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(request.body).toBe(JSON.stringify(event));
    expect(Number(request.headers['content-length'])).toBe(Buffer.byteLength(request.body));
    expect(new Webhook(secret).verify(request.body, request.headers)).toEqual(event);
  });

  it('issues whsec_ secrets of base64 that decode to 24 to 64 bytes', async () => {
    const { subscribe } = await startDispatchFixture(cleanup);
    for (const path of ['/a', '/b', '/c']) {
      const { secret } = await subscribe(path);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
      const bytes = Buffer.from(secret.slice('whsec_'.length), 'base64').length;
      expect(bytes).toBeGreaterThanOrEqual(24);
      expect(bytes).toBeLessThanOrEqual(64);
    }
  });

  it('is verified by a receiver holding either secret for 24 hours after a rotation, then by the new one only', async () => {
    const { receiver, harness, subscribe, clock } = await startDispatchFixture(cleanup);
    const created = await subscribe('/rotating');
    const rotated = await harness.service.rotateSecret(created.subscription.id);
    const send = async (n: number) => {
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
      await harness.drainVisible();
      return receiver.log.at(-1)!;
    };

    const during = await send(1);
    expect(during.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(verifiesWith(created.secret, during, clock.now())).toBe(true);
    expect(verifiesWith(rotated.secret, during, clock.now())).toBe(true);

    await clock.advance(24 * 3_600_000 - 60_000);
    const lastMinute = await send(2);
    expect(verifiesWith(created.secret, lastMinute, clock.now())).toBe(true);
    expect(verifiesWith(rotated.secret, lastMinute, clock.now())).toBe(true);

    await clock.advance(60_000);
    const after = await send(3);
    expect(after.headers['webhook-signature']?.split(' ')).toHaveLength(1);
    expect(verifiesWith(created.secret, after, clock.now())).toBe(false);
    expect(verifiesWith(rotated.secret, after, clock.now())).toBe(true);
  });
});

describe('what counts as a success', () => {
  it.each([200, 201, 202, 204, 299])('takes %i as delivered', async (status) => {
    const { receiver, harness, subscribe } = await startDispatchFixture(cleanup, () => ({
      kind: 'respond',
      status,
    }));
    const { subscription } = await subscribe('/ok');
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1))));
    await harness.drainVisible();
    expect(receiver.log).toHaveLength(1);
    const [entry] = await harness.service.listDeliveries({ subscriptionId: subscription.id });
    expect(entry?.delivery.status).toBe('delivered');
  });

  it.each([300, 301, 302, 303, 307, 308])(
    'follows no %i redirect and retries it on the schedule',
    async (status) => {
      const { receiver, harness, subscribe, clock } = await startDispatchFixture(cleanup, (r) =>
        r.path === '/moved'
          ? { kind: 'respond', status, headers: { location: receiver.url('/elsewhere') } }
          : { kind: 'respond', status: 200 },
      );
      const { subscription } = await subscribe('/moved');
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1))));
      await harness.drainVisible();
      expect(receiver.log.map((r) => r.path)).toEqual(['/moved']);
      const [entry] = await harness.service.listDeliveries({ subscriptionId: subscription.id });
      expect(entry?.delivery.status).toBe('pending');
      expect(entry?.attempts[0]).toMatchObject({ status, outcome: 'retry' });
      // The default first retry: 5 s ± 20 %.
      const delay = entry!.attempts[0]!.nextAttemptAt! - entry!.attempts[0]!.at;
      expect(delay).toBeGreaterThanOrEqual(4_000);
      expect(delay).toBeLessThanOrEqual(6_000);
      await clock.advance(7_000);
      await harness.drainVisible();
      expect(receiver.log.map((r) => r.path)).toEqual(['/moved', '/moved']);
    },
  );

  it('retries a receiver that takes the request and never answers, once the timeout passes', async () => {
    let hung = false;
    const { receiver, harness, subscribe, clock } = await startDispatchFixture(
      cleanup,
      () => {
        if (hung) return { kind: 'respond', status: 204 };
        hung = true;
        return { kind: 'hang' };
      },
      { timeoutMs: 300 },
    );
    const { subscription } = await subscribe('/silent');
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1))));
    await harness.drainVisible();
    const [first] = await harness.service.listDeliveries({ subscriptionId: subscription.id });
    expect(first?.delivery.status).toBe('pending');
    expect(first?.attempts[0]?.error).toMatch(/^timeout/);
    await clock.advance(7_000);
    await harness.drainVisible();
    expect(receiver.log.map(idOf)).toEqual([eventIdOf(1), eventIdOf(1)]);
    const [second] = await harness.service.listDeliveries({ subscriptionId: subscription.id });
    expect(second?.delivery.status).toBe('delivered');
  });
});

describe('Retry-After, 410 and disabling as a subscriber meets them', () => {
  it('pauses the whole endpoint on a 503 whose Retry-After is an HTTP date', async () => {
    let answered = false;
    const { receiver, harness, subscribe, clock } = await startDispatchFixture(cleanup, () => {
      if (answered) return { kind: 'respond', status: 200 };
      answered = true;
      const until = new Date(Date.now() + 120_000).toUTCString();
      return { kind: 'respond', status: 503, headers: { 'retry-after': until } };
    });
    await subscribe('/busy', { maxConcurrency: 1 });
    for (let n = 1; n <= 4; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    await harness.drainVisible();
    expect(receiver.log).toHaveLength(1);
    await clock.advance(110_000);
    await harness.drainVisible();
    expect(receiver.log).toHaveLength(1);
    await clock.advance(15_000);
    await harness.drainVisible();
    expect(new Set(receiver.log.map(idOf))).toEqual(new Set([1, 2, 3, 4].map(eventIdOf)));
    expect(receiver.log).toHaveLength(5);
  });

  it('says why a subscription failing too long was disabled, in an event of the published schema', async () => {
    const { harness, subscribe, clock } = await startDispatchFixture(
      cleanup,
      () => ({ kind: 'respond', status: 500 }),
      { config: { disableAfterMs: 60_000 } },
    );
    const { subscription } = await subscribe('/dead/secret-path', {
      retrySchedule: [40_000, 40_000, 40_000],
    });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1))));
    await harness.drainVisible();
    for (let i = 0; i < 3; i++) {
      await clock.advance(50_000);
      await harness.drainVisible();
    }
    const disabled = harness.sink.events.filter((e) => e.type === 'subscription.disabled');
    expect(disabled).toHaveLength(1);
    const event = SubscriptionDisabledEventSchema.parse(disabled[0]);
    expect(event.subject).toBe(subscription.id);
    expect(event.data).toMatchObject({ subscriptionId: subscription.id });
    expect(event.data.reason).toMatch(/without success/);
    expect(event.data.url).not.toMatch(/secret-path/);
  });

  it('says a 410 disabled the subscription, in an event of the published schema', async () => {
    const { harness, subscribe } = await startDispatchFixture(cleanup, () => ({
      kind: 'respond',
      status: 410,
    }));
    const { subscription } = await subscribe('/gone');
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1))));
    await harness.drainVisible();
    const [event] = harness.sink.events.map((e) => SubscriptionDisabledEventSchema.parse(e));
    expect(event?.data).toMatchObject({ subscriptionId: subscription.id });
    expect(event?.data.reason).toMatch(/410/);
    expect((await harness.service.getSubscription(subscription.id)).enabled).toBe(false);
  });

  it('says nothing after subscription.disabled when a burst of requests in flight is answered 410', async () => {
    const { receiver, harness, subscribe } = await startDispatchFixture(cleanup, () => ({
      kind: 'respond',
      status: 410,
      delayMs: 50,
    }));
    const { subscription } = await subscribe('/gone');
    for (let n = 1; n <= 6; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    await harness.drainVisible();
    // Every request was in flight when the first 410 came back; each of them answered 410 too.
    expect(receiver.log).toHaveLength(6);
    expect(harness.sink.events.map((e) => [e.type, e.subject])).toEqual([
      ['subscription.disabled', subscription.id],
    ]);
  });
});

describe('a subject’s order', () => {
  it('holds a subject’s later events behind an earlier one that hit a Retry-After pause', async () => {
    let paused = false;
    const { receiver, harness, subscribe, clock } = await startDispatchFixture(cleanup, () => {
      if (paused) return { kind: 'respond', status: 200 };
      paused = true;
      return { kind: 'respond', status: 429, headers: { 'retry-after': '30' } };
    });
    await subscribe('/ordered');
    for (let n = 1; n <= 3; n++) {
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n), { subject: 'c-1' })));
      await harness.drainVisible();
      await clock.advance(1_000);
    }
    for (let step = 0; step < 60; step++) {
      await clock.advance(1_000);
      await harness.drainVisible();
    }
    expect(receiver.log.map(idOf)).toEqual([1, 1, 2, 3].map(eventIdOf));
  }, 20_000);

  it('holds a subject’s later event behind an earlier one that timed out', async () => {
    let hung = false;
    const { receiver, harness, subscribe, clock } = await startDispatchFixture(
      cleanup,
      () => {
        if (hung) return { kind: 'respond', status: 200 };
        hung = true;
        return { kind: 'hang' };
      },
      { timeoutMs: 300 },
    );
    await subscribe('/ordered');
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1), { subject: 'c-1' })));
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(2), { subject: 'c-1' })));
    await harness.drainVisible();
    for (let step = 0; step < 10; step++) {
      await clock.advance(1_000);
      await harness.drainVisible();
    }
    expect(receiver.log.map(idOf)).toEqual([1, 1, 2].map(eventIdOf));
  }, 20_000);
});
