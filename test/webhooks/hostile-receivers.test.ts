import { afterEach, describe, expect, it } from 'vitest';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { startRealTimeFixture } from './support/fixture.ts';
import { changeEvent, type createHarness, envelope, eventIdOf } from './support/harness.ts';
import { peakInFlight } from './support/peak-in-flight.ts';
import type { ReceivedRequest, ReceiverAction } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const setup = (
  decide?: (request: ReceivedRequest) => ReceiverAction,
  options: Parameters<typeof createHarness>[0] = {},
) => startRealTimeFixture(cleanup, decide, options);

describe('deliveries to receivers that misbehave or are merely slow', () => {
  it('runs a subscription maxConcurrency of 128 at once, none queued in the sender past its timeout', async () => {
    const spans: { start: number; end: number }[] = [];
    const { receiver, harness, subscribe } = await setup(
      (request) => {
        spans.push({ start: request.at, end: request.at + 600 });
        return { kind: 'respond', status: 200, delayMs: 600 };
      },
      { timeoutMs: 2000 },
    );
    const { subscription } = await subscribe('/slow', { maxConcurrency: 128 });
    for (let n = 0; n < 128; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    await harness.drainVisible(128);
    const deliveries = await harness.service.listDeliveries({
      subscriptionId: subscription.id,
      limit: 200,
    });
    // A pool of 32 connections would hold the last 32 for three answers (1.8 s) before sending.
    expect(deliveries.map((d) => d.attempts.map((a) => a.error ?? a.status))).toEqual(
      Array.from({ length: 128 }, () => [200]),
    );
    expect(receiver.log).toHaveLength(128);
    expect(peakInFlight(spans)).toBeGreaterThan(32);
  });

  /** Queue records of the change events `from` … `from + count - 1`. */
  const records = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      messageId: `m-${from + i}`,
      body: envelope(changeEvent(eventIdOf(from + i))),
    }));

  it('sends nothing more to an endpoint that answered 410, from any batch the process runs at once', async () => {
    const { receiver, harness, subscribe } = await setup(() => ({
      kind: 'respond',
      status: 410,
      delayMs: 50,
    }));
    const { subscription } = await subscribe('/gone', { maxConcurrency: 1 });
    // Two batches at once, as the local consumer runs them: each has read the subscription
    // (enabled) before the first 410 comes back.
    await Promise.all([
      processDispatchBatch(records(0, 3), harness.deps),
      processDispatchBatch(records(3, 3), harness.deps),
    ]);
    expect(receiver.log).toHaveLength(1);
    expect((await harness.service.getSubscription(subscription.id)).enabled).toBe(false);
    const deliveries = await harness.service.listDeliveries({ subscriptionId: subscription.id });
    expect(deliveries.map((d) => d.delivery.status)).toEqual(Array(6).fill('dead'));
    expect(harness.sink.events.map((e) => e.type)).toEqual(['subscription.disabled']);
  });

  it('sends nothing more to an endpoint that answered 410 when a batch could not read the subscription again once', async () => {
    const { receiver, harness, subscribe } = await setup(() => ({
      kind: 'respond',
      status: 410,
      delayMs: 50,
    }));
    const { subscription } = await subscribe('/gone-throttled', { maxConcurrency: 1 });
    // The first read of the subscription after the process disabled it fails (a throttled
    // GetItem): the batch that made it fails that record, and reads it again for the next.
    const store = harness.deps.store;
    const getSubscription = store.getSubscription.bind(store);
    let failed = false;
    store.getSubscription = async (id) => {
      if (!failed && harness.deps.scheduler.disabledAt(id) !== undefined) {
        failed = true;
        throw new Error('ProvisionedThroughputExceededException');
      }
      return getSubscription(id);
    };
    try {
      await Promise.all([
        processDispatchBatch(records(0, 3), harness.deps),
        processDispatchBatch(records(3, 3), harness.deps),
      ]);
      expect(failed).toBe(true);
      expect(receiver.log).toHaveLength(1);
      expect((await harness.service.getSubscription(subscription.id)).enabled).toBe(false);
    } finally {
      store.getSubscription = getSubscription;
    }
  });
});
