import { describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { DispatchBatch } from '../../shared/webhooks/dispatch-batch.ts';
import { createDispatcherDeps } from '../../shared/webhooks/dispatcher-deps.ts';
import { MemoryWebhookStore } from '../../shared/webhooks/memory-store.ts';
import { MemoryOperationalEventSink } from '../../shared/webhooks/operational-events.ts';
import { MemoryDeliveryQueue } from '../../shared/webhooks/queue.ts';
import type { StoredEvent } from '../../shared/webhooks/store.ts';

/** A dispatch batch over a memory store whose event reads are counted. */
function batchOverCountedStore() {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const store = new MemoryWebhookStore();
  const deps = createDispatcherDeps({
    clock,
    queue: new MemoryDeliveryQueue(clock),
    store,
    sink: new MemoryOperationalEventSink(),
    sender: undefined as never,
    logger: { warn: () => {}, error: () => {} },
  });
  const reads = vi.spyOn(store, 'getEvent');
  return { batch: new DispatchBatch(deps), reads };
}

describe('a dispatch batch’s event reads', () => {
  it('reads an event once for all the deliveries of the batch that send it', async () => {
    const { batch, reads } = batchOverCountedStore();
    const stored = { id: 'e1', body: '{}' } as unknown as StoredEvent;
    reads.mockImplementation(async (id) => (id === 'e1' ? stored : undefined));
    // Five subscriptions' deliveries of e1, and one of an event no longer stored.
    const read = await Promise.all([1, 2, 3, 4, 5].map(() => batch.storedEvent('e1')));
    expect(read.every((event) => event === stored)).toBe(true);
    expect(await batch.storedEvent('gone')).toBeUndefined();
    expect(await batch.storedEvent('gone')).toBeUndefined();
    expect(reads.mock.calls.map(([id]) => id)).toEqual(['e1', 'gone']);
  });

  it('reads again after a failed read, so one store error fails one delivery, not the rest', async () => {
    const { batch, reads } = batchOverCountedStore();
    const stored = { id: 'e1', body: '{}' } as unknown as StoredEvent;
    reads.mockRejectedValueOnce(new Error('throttled')).mockResolvedValue(stored);
    await expect(batch.storedEvent('e1')).rejects.toThrow('throttled');
    expect(await batch.storedEvent('e1')).toBe(stored);
    expect(await batch.storedEvent('e1')).toBe(stored);
    expect(reads).toHaveBeenCalledTimes(2);
  });
});
