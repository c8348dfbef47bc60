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

/** Each answer takes this long (within the harness's 2 s timeout). */
const ANSWER_MS = 1_500;

// README: a slow endpoint does not hold the batches, and the workers, other endpoints need.
describe("a batch's deliveries to an endpoint answering in 1.5 s, one at a time", () => {
  it('end within two answers: the far end of the line is deferred to about its turns, marked as waiting in line', async () => {
    const { receiver, harness, subscribe } = await startDispatchFixture(
      cleanup,
      () => ({ kind: 'respond', status: 200, delayMs: ANSWER_MS }),
      { clock: systemClock },
    );
    await subscribe('/slow', { maxConcurrency: 1 });
    const batch = Array.from({ length: 5 }, (_, n) => ({
      messageId: `m-${n}`,
      body: envelope(changeEvent(eventIdOf(n))),
    }));

    const started = Date.now();
    const result = await processDispatchBatch(batch, harness.deps);
    const tookMs = Date.now() - started;

    expect(result.batchItemFailures).toEqual([]);
    // Five in line would have held the batch 7.5 s; the first two go, the rest are deferred.
    expect(tookMs).toBeLessThan(2 * ANSWER_MS + 1_000);
    expect(receiver.log).toHaveLength(2);
    const deliveries = await harness.store.listDeliveries({ limit: 10 });
    const pending = deliveries.filter((d) => d.status === 'pending');
    expect(pending).toHaveLength(3);
    // Each comes back at about its turn as the endpoint's pace was known then: after the second
    // answer, one after another (not all at once).
    const turns = pending.map((d) => d.nextAttemptAt - started).sort((x, y) => x - y);
    expect(turns[0]).toBeGreaterThan(ANSWER_MS);
    expect(turns[1]).toBeGreaterThan(turns[0]!);
    expect(turns[2]).toBeGreaterThan(turns[1]!);
    // Their messages say they wait in the endpoint's line: the local run counts them as backlog.
    expect(harness.queue.waitingInLine).toBe(3);
  }, 20_000);
});
