import { afterEach, describe, expect, it } from 'vitest';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { MemoryWebhookStore } from '../../shared/webhooks/memory-store.ts';
import type { EndpointState } from '../../shared/webhooks/store.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { anotherProcess, changeEvent, envelope, eventIdOf } from './support/harness.ts';
import type { ReceivedRequest } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/**
 * A store whose writes of the endpoint states of `held` subscriptions wait until `release()`;
 * `reached` settles once one of them is waiting.
 */
class HeldEndpointWrites extends MemoryWebhookStore {
  readonly held = new Set<string>();
  private opened!: () => void;
  private readonly gate = new Promise<void>((resolve) => {
    this.opened = resolve;
  });
  private arrived!: () => void;
  readonly reached = new Promise<void>((resolve) => {
    this.arrived = resolve;
  });

  release(): void {
    this.opened();
  }

  override async putEndpointState(
    state: EndpointState,
    options: { ifVersion: number | undefined },
  ): Promise<EndpointState | undefined> {
    if (this.held.has(state.subscriptionId)) {
      this.arrived();
      await this.gate;
    }
    return super.putEndpointState(state, options);
  }
}

/**
 * Two subscriptions to one URL (say one for customers, one for resources, or one per team) post
 * to the same receiver: a `Retry-After` it answers to one is about every request it gets, and
 * design.md has it pause "that whole endpoint", not one subscription of it.
 */
describe('a Retry-After from a URL two subscriptions post to', () => {
  async function setup(store?: MemoryWebhookStore) {
    const fixture = await startDispatchFixture(
      cleanup,
      (request) => {
        const id = (request as ReceivedRequest).headers['webhook-id'];
        if (id === eventIdOf(1))
          return { kind: 'respond', status: 429, headers: { 'retry-after': '120' } };
        return { kind: 'respond', status: 200 };
      },
      store ? { store } : {},
    );
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

  it('stores the pause of the subscription answered before those of the others', async () => {
    // The stored pause is what holds the endpoint in other processes and across a restart
    // (README: stored as soon as it is learnt): it waits for no other subscription's write.
    const store = new HeldEndpointWrites();
    const { harness, first, second, clock } = await setup(store);
    store.held.add(second.subscription.id);
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1), { type: 'customer.created' })));
    const draining = harness.drainVisible();
    try {
      await store.reached;
      const stored = await store.getEndpointState(first.subscription.id);
      expect(stored?.pausedUntil).toBeGreaterThanOrEqual(clock.now() + 119_000);
    } finally {
      store.release();
      await draining;
    }
    const sibling = await store.getEndpointState(second.subscription.id);
    expect(sibling?.pausedUntil).toBeGreaterThanOrEqual(clock.now() + 119_000);
  });

  it('holds the other subscription in this process while the pause is being stored', async () => {
    const store = new HeldEndpointWrites();
    const { receiver, harness, first } = await setup(store);
    store.held.add(first.subscription.id);
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1), { type: 'customer.created' })));
    const draining = harness.drainVisible();
    try {
      await store.reached;
      // Another batch of the process, while the answered subscription's pause is being stored.
      await processDispatchBatch(
        [{ messageId: 'a-2', body: envelope(changeEvent(eventIdOf(2))) }],
        harness.deps,
      );
      expect(idsAt(receiver.log, '/elsewhere')).toEqual([eventIdOf(2)]);
      expect(idsAt(receiver.log, '/shared')).toEqual([eventIdOf(1)]);
    } finally {
      store.release();
      await draining;
    }
  });
});
