import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, systemClock } from '../../shared/clock.ts';
import { attemptDelivery } from '../../shared/webhooks/attempt.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { EndpointScheduler } from '../../shared/webhooks/endpoint-scheduler.ts';
import { deliveryMessage } from '../../shared/webhooks/messages.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, createHarness, envelope, eventIdOf } from './support/harness.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** Each answer takes this long (within the harness's 2 s timeout). */
const ANSWER_MS = 1_500;

// README: a slow endpoint does not hold the batches, and the workers, other endpoints need.
describe("a batch's deliveries to an endpoint answering in 1.5 s, one at a time", () => {
  it('end within three answers: the far end of the line is deferred to about its turns, marked as waiting in line', async () => {
    const { receiver, harness, subscribe } = await startDispatchFixture(
      cleanup,
      () => ({ kind: 'respond', status: 200, delayMs: ANSWER_MS }),
      { clock: systemClock },
    );
    await subscribe('/slow', { maxConcurrency: 1 });
    const batch = Array.from({ length: 7 }, (_, n) => ({
      messageId: `m-${n}`,
      body: envelope(changeEvent(eventIdOf(n))),
    }));

    const started = Date.now();
    const result = await processDispatchBatch(batch, harness.deps);

    expect(result.batchItemFailures).toEqual([]);
    // Seven in line would have held the batch for seven answers. The endpoint is judged slow once
    // its first request has run a second, and acted on half a second later: two or three
    // requests go (as that check falls before or after the first answer), the rest are
    // deferred. The batch waited for those it sent, one at a time, and no more: counted, not
    // timed (a loaded host stretches each answer's wait, not their number).
    const sent = receiver.log.length;
    expect([2, 3]).toContain(sent);
    const deliveries = await harness.store.listDeliveries({ limit: 10 });
    const pending = deliveries.filter((d) => d.status === 'pending');
    expect(pending).toHaveLength(7 - sent);
    // Each comes back at about its turn as the endpoint's pace was known then: after the
    // answers before it, one after another (not all at once).
    const turns = pending.map((d) => d.nextAttemptAt - started).sort((x, y) => x - y);
    expect(turns[0]).toBeGreaterThan(ANSWER_MS);
    for (let n = 1; n < turns.length; n++) expect(turns[n]).toBeGreaterThan(turns[n - 1]!);
    // Their messages say they wait in the endpoint's line: the local run counts them as backlog.
    expect(harness.queue.waitingInLine).toBe(7 - sent);
  }, 20_000);
});

describe('a bulk delivery deferred for its turn at a slow endpoint', () => {
  it('comes back on the dispatch queue marked bulk, and waits there behind live work', async () => {
    const scheduler = new EndpointScheduler(new ManualClock());
    const run = vi.spyOn(scheduler, 'run');
    const harness = createHarness({ scheduler });
    const message = { ...deliveryMessage({ id: 'dlv_1', subscriptionId: 'sub_1' }, 'c-1', 'bulk') };
    expect(message.lane).toBe('bulk');
    await processDispatchBatch(
      [{ messageId: 'm-1', body: JSON.stringify(message) }],
      harness.deps,
      {
        lane: 'live',
      },
    );
    // The lane it is queued in at its endpoint (the scheduler's `priority`).
    expect(run.mock.calls.map((call) => call[4])).toEqual(['bulk']);
  });
});

describe('a retry started to defer itself for its turn', () => {
  it('is not marked as waiting in line when its own retry time is later than its turn', async () => {
    const { harness, subscribe } = await startDispatchFixture(
      cleanup,
      () => ({ kind: 'respond', status: 500 }),
      { clock: systemClock },
    );
    const { subscription } = await subscribe('/failing', { maxConcurrency: 1 });
    await processDispatchBatch(
      [{ messageId: 'm-0', body: envelope(changeEvent(eventIdOf(0))) }],
      harness.deps,
    );
    const [pending] = await harness.store.listDeliveries({
      subscriptionId: subscription.id,
      limit: 10,
    });
    expect(pending?.status).toBe('pending');
    expect(harness.queue.size).toBe(1);
    // Its retry is due in about 5 s; its message arrives early, started to defer itself for a
    // turn 1 s ahead: it waits for its retry time, not in the line.
    const line = { until: Date.now() + 1_000, lane: 'live' as const };
    await attemptDelivery(pending!.id, harness.deps, undefined, { line });
    expect(harness.queue.size).toBe(2);
    expect(harness.queue.waitingInLine).toBe(0);
  });
});
