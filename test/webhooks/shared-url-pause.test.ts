import { afterEach, describe, expect, it } from 'vitest';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { anotherProcess, changeEvent, envelope, eventIdOf } from './support/harness.ts';
import type { ReceivedRequest } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/**
 * Two subscriptions to one URL (say one for customers, one for resources, or one per team) post
 * to the same receiver: a `Retry-After` it answers to one is about every request it gets, and
 * design.md has it pause "that whole endpoint", not one subscription of it.
 */
describe('a Retry-After from a URL two subscriptions post to', () => {
  async function setup() {
    const fixture = await startDispatchFixture(cleanup, (request) => {
      const id = (request as ReceivedRequest).headers['webhook-id'];
      if (id === eventIdOf(1))
        return { kind: 'respond', status: 429, headers: { 'retry-after': '120' } };
      return { kind: 'respond', status: 200 };
    });
    // Event 1, a `customer.created`, goes to the first subscription only and is answered 429
    // with Retry-After 120; event 2, a `customer.updated`, goes to all three.
    const first = await fixture.subscribe('/shared', { events: ['customer.*'] });
    const second = await fixture.subscribe('/shared', { events: ['customer.updated'] });
    const other = await fixture.subscribe('/elsewhere', { events: ['customer.updated'] });
    return { ...fixture, first, second, other };
  }

  const idsAt = (log: readonly ReceivedRequest[], path: string) =>
    log.filter((r) => r.path === path).map((r) => r.headers['webhook-id']);

  it('pauses the other subscription to that URL too, in the process that was answered', async () => {
    const { receiver, harness, clock } = await setup();
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1), { type: 'customer.created' })));
    await harness.drainVisible();
    expect(idsAt(receiver.log, '/shared')).toEqual([eventIdOf(1)]);

    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(2))));
    await harness.drainVisible();
    // Another URL is not paused; the shared one is, for both subscriptions.
    expect(idsAt(receiver.log, '/elsewhere')).toEqual([eventIdOf(2)]);
    expect(idsAt(receiver.log, '/shared')).toEqual([eventIdOf(1)]);

    await clock.advance(119_000);
    await harness.drainVisible();
    expect(idsAt(receiver.log, '/shared')).toEqual([eventIdOf(1)]);
    await clock.advance(2_000);
    await harness.drainVisible();
    // Then both subscriptions' event 2 (the first subscription's retry of event 1 comes on its schedule).
    expect(idsAt(receiver.log, '/shared').filter((id) => id === eventIdOf(2))).toHaveLength(2);
  });

  it('pauses the other subscription to that URL in another process too (AWS: another container)', async () => {
    const { receiver, harness, second } = await setup();
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1), { type: 'customer.created' })));
    await harness.drainVisible();

    // Another process, which knows nothing of the 429, handles event 2 for both subscriptions.
    const processB = anotherProcess(harness.deps);
    await processDispatchBatch(
      [{ messageId: 'b-2', body: envelope(changeEvent(eventIdOf(2))) }],
      processB,
    );
    expect(idsAt(receiver.log, '/shared')).toEqual([eventIdOf(1)]);
    const stored = await harness.store.getEndpointState(second.subscription.id);
    expect(stored?.pausedUntil).toBeGreaterThanOrEqual(harness.clock.now() + 119_000);
    // The pause counts no failure against the subscription that was not answered.
    expect(stored?.consecutiveFailures ?? 0).toBe(0);
  });
});
