import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../../shared/webhooks/retry-policy.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, envelope, eventIdOf } from './support/harness.ts';
import type { ReceivedRequest } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** The default schedule's whole span, first attempt to last: 27 h 35 min 5 s. */
const SCHEDULE_SPAN_MS = DEFAULT_RETRY_SCHEDULE_MS.reduce((sum, step) => sum + step, 0);

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

/**
 * A receiver that answers its first request 429 with `retryAfter` and takes every later one,
 * three events of three subjects sent to it, and the first answered.
 */
async function answeredRetryAfter(retryAfter: string) {
  let answered = false;
  const fixture = await startDispatchFixture(cleanup, () => {
    if (answered) return { kind: 'respond', status: 204 };
    answered = true;
    return { kind: 'respond', status: 429, headers: { 'retry-after': retryAfter } };
  });
  const { secret } = await fixture.subscribe('/busy', { maxConcurrency: 1 });
  for (let n = 1; n <= 3; n++) fixture.harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
  await fixture.harness.drainVisible();
  expect(fixture.receiver.log).toHaveLength(1);
  /** Moves the clock to `ms` after the 429 and lets what is due go out. */
  const at = async (ms: number) => {
    await fixture.clock.set(start + ms);
    await fixture.harness.drainVisible();
  };
  const start = fixture.clock.now();
  return { ...fixture, secret, at };
}

describe('a Retry-After longer than an hour', () => {
  it('is honoured in full: a 429 asking for 2 h gets no request before 2 h, then every delivery', async () => {
    const { receiver, clock, secret, at } = await answeredRetryAfter(String(2 * 3600));
    await at(HOUR_MS + MINUTE_MS);
    expect(receiver.log).toHaveLength(1);
    await at(2 * HOUR_MS - MINUTE_MS);
    expect(receiver.log).toHaveLength(1);
    await at(2 * HOUR_MS + MINUTE_MS);
    expect(new Set(receiver.log.slice(1).map((r) => r.headers['webhook-id']))).toEqual(
      new Set([1, 2, 3].map(eventIdOf)),
    );
    expect(receiver.log).toHaveLength(4);
    for (const request of receiver.log.slice(1)) {
      expect(verifiesWith(secret, request, clock.now())).toBe(true);
    }
  });

  it('is taken as the retry schedule’s whole span (27 h 35 min 5 s) when it asks for days', async () => {
    const { receiver, at } = await answeredRetryAfter(String(3 * 24 * 3600));
    await at(SCHEDULE_SPAN_MS - MINUTE_MS);
    expect(receiver.log).toHaveLength(1);
    await at(SCHEDULE_SPAN_MS + MINUTE_MS);
    expect(receiver.log).toHaveLength(4);
  });
});
