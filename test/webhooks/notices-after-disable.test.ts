import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, envelope, eventIdOf } from './support/harness.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** Waits (real time, briefly) until `ready` holds. */
async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ready(); i++) await delay(5);
  expect(ready()).toBe(true);
}

describe('operational events about a subscription once it is disabled', () => {
  it('says no delivery.failing after subscription.disabled when the requests in flight after a 410 fail', async () => {
    // The first request is answered 410 at once; the five beside it fail (500) a little later.
    let first = true;
    const { receiver, harness, subscribe } = await startDispatchFixture(cleanup, () => {
      if (!first) return { kind: 'respond', status: 500, delayMs: 150 };
      first = false;
      return { kind: 'respond', status: 410 };
    });
    const { subscription } = await subscribe('/gone-then-failing');
    for (let n = 1; n <= 6; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    await harness.drainVisible();

    expect(receiver.log).toHaveLength(6);
    expect(receiver.log.every((request) => request.verifiedWith === 1)).toBe(true);
    expect(harness.sink.events.map((e) => [e.type, e.subject])).toEqual([
      ['subscription.disabled', subscription.id],
    ]);
  });

  it('says no delivery.failing once the admin disabled the subscription while its requests were in flight', async () => {
    const { receiver, harness, subscribe } = await startDispatchFixture(cleanup, () => ({
      kind: 'respond',
      status: 500,
      delayMs: 150,
    }));
    const { subscription } = await subscribe('/failing');
    for (let n = 1; n <= 6; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    const drained = harness.drainVisible();
    await until(() => receiver.log.length === 6);
    await harness.service.updateSubscription(subscription.id, { enabled: false });
    await drained;

    expect(receiver.log.every((request) => request.verifiedWith === 1)).toBe(true);
    expect(harness.sink.events.map((e) => e.type)).toEqual([]);
  });

  it('says no delivery.recovered after subscription.disabled when requests in flight then succeed', async () => {
    type Answer = { kind: 'respond'; status: number; delayMs?: number };
    let answer: () => Answer = () => ({ kind: 'respond', status: 500 });
    const { receiver, harness, subscribe, clock } = await startDispatchFixture(
      cleanup,
      () => answer(),
      { config: { disableAfterMs: 60_000 } },
    );
    const { subscription } = await subscribe('/flaky');
    for (let n = 1; n <= 4; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    await harness.drainVisible();
    // Four failures in a row: delivery.failing.
    expect(harness.sink.events.map((e) => e.type)).toEqual(['delivery.failing']);

    // A minute on, still failing: the next failure, answered at once, disables the subscription;
    // the four requests beside it succeed 150 ms later, as many as announce a recovery.
    await clock.advance(61_000);
    let answered = 0;
    answer = () => {
      answered += 1;
      return answered === 1
        ? { kind: 'respond', status: 500 }
        : { kind: 'respond', status: 204, delayMs: 150 };
    };
    for (let n = 5; n <= 9; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    await harness.drainVisible();

    expect(receiver.log.length).toBeGreaterThanOrEqual(9);
    expect(harness.sink.events.map((e) => [e.type, e.subject])).toEqual([
      ['delivery.failing', subscription.id],
      ['subscription.disabled', subscription.id],
    ]);
  });
});
