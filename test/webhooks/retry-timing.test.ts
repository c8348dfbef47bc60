import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { afterDeliveryWrite } from '../../shared/webhooks/delivery-follow-up.ts';
import { DispatchBatch } from '../../shared/webhooks/dispatch-batch.ts';
import { createDispatcherDeps } from '../../shared/webhooks/dispatcher-deps.ts';
import { MemoryWebhookStore } from '../../shared/webhooks/memory-store.ts';
import { MemoryOperationalEventSink } from '../../shared/webhooks/operational-events.ts';
import { MemoryDeliveryQueue } from '../../shared/webhooks/queue.ts';
import type { Delivery } from '../../shared/webhooks/store.ts';

/** A dispatcher's parts on a manual clock and a memory queue. */
function timingDeps() {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const queue = new MemoryDeliveryQueue(clock);
  const deps = createDispatcherDeps({
    clock,
    queue,
    store: new MemoryWebhookStore(),
    sink: new MemoryOperationalEventSink(),
    sender: undefined as never,
    logger: { warn: () => {}, error: () => {} },
  });
  return { clock, queue, deps };
}

const pending = (nextAttemptAt: number): Delivery => ({
  id: 'dlv_1',
  eventId: 'evt_1',
  subscriptionId: 'sub_1',
  status: 'pending',
  attempts: 1,
  nextAttemptAt,
  createdAt: 0,
  updatedAt: 0,
  version: 2,
});

describe('retry timing', () => {
  it('makes a retry visible at its due time though its batch sends the message later', async () => {
    const { clock, queue, deps } = timingDeps();
    const batch = new DispatchBatch(deps);
    const dueAt = clock.now() + 5_000;
    await afterDeliveryWrite(pending(dueAt), batch, ['rec_1']);
    // The batch's other deliveries (a slow endpoint) keep it open 3.5 s before it flushes.
    await clock.advance(3_500);
    await batch.flush();
    expect(queue.nextVisibleAt()).toBeGreaterThanOrEqual(dueAt);
    expect(queue.nextVisibleAt()).toBeLessThanOrEqual(dueAt + 1000);
  });

  it('sends a retry at its due time when its batch runs past it, not when the batch flushes', async () => {
    const { clock, queue, deps } = timingDeps();
    const batch = new DispatchBatch(deps);
    const dueAt = clock.now() + 5_000;
    await afterDeliveryWrite(pending(dueAt), batch, ['rec_1']);
    // Another endpoint's request (hanging until its timeout) holds the batch 12 s.
    await clock.advance(12_000);
    expect(queue.nextVisibleAt()).toBe(dueAt);
    await batch.flush();
    expect(queue.size).toBe(1);
    expect(batch.failures.size).toBe(0);
  });
});
