import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, envelope, eventIdOf } from './support/harness.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

// A change is published again under its id (a backfill's created and a live poll's announcement
// of it, a repeated window): the dispatcher keeps the first copy of an id. A copy that arrives
// while the first still waits in an endpoint's line, not yet stored, must not be sent again.
describe('an event published again while its first copy is in flight', () => {
  it('is delivered once, and both copies are acknowledged', async () => {
    const { receiver, harness, subscribe } = await startDispatchFixture(
      cleanup,
      () => ({ kind: 'respond', status: 200, delayMs: 300 }),
      { clock: systemClock },
    );
    await subscribe('/slow');
    const body = envelope(changeEvent(eventIdOf(1)));
    const handled: string[] = [];
    const onEventHandled = (event: { id: string }) => handled.push(event.id);
    const first = processDispatchBatch([{ messageId: 'm1', body }], harness.deps, {
      onEventHandled,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await processDispatchBatch([{ messageId: 'm2', body }], harness.deps, {
      onEventHandled,
    });
    expect(second.batchItemFailures).toEqual([]);
    expect((await first).batchItemFailures).toEqual([]);
    expect(receiver.log.map((r) => r.headers['webhook-id'])).toEqual([eventIdOf(1)]);
    expect(handled).toEqual([eventIdOf(1), eventIdOf(1)]);
    // Once the first is done, a later copy finds it stored: still once.
    await processDispatchBatch([{ messageId: 'm3', body }], harness.deps);
    expect(receiver.log).toHaveLength(1);
  });
});
