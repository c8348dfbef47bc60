import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { SLOT_WAIT_LIMIT_MS } from '../../shared/webhooks/endpoint-lane-pump.ts';
import { endpointOfUrl } from '../../shared/webhooks/endpoint-of-url.ts';
import { EndpointScheduler } from '../../shared/webhooks/endpoint-scheduler.ts';
import { MemoryEndpointSlots } from '../../shared/webhooks/endpoint-slots.ts';
import { startDispatchFixture, startRealTimeFixture } from './support/fixture.ts';
import { changeEvent, envelope, eventIdOf } from './support/harness.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** Each answer takes this long. */
const ANSWER_MS = 300;

/** `count` events of one subject, in the order they were detected. */
function oneSubjectBatch(count: number) {
  return Array.from({ length: count }, (_, n) => ({
    messageId: `m-${n}`,
    body: envelope(changeEvent(eventIdOf(n), { subject: 'c-1' })),
  }));
}

// A Lambda invocation that outlives its timeout is killed before its batch's attempts are
// written: what it sent is sent again when SQS hands the batch back.
describe('a batch given a deadline', () => {
  it('starts no request after it: the rest of a subject’s chain is deferred, in order, nothing lost or sent twice', async () => {
    const { receiver, harness, subscribe } = await startRealTimeFixture(cleanup, () => ({
      kind: 'respond',
      status: 200,
      delayMs: ANSWER_MS,
    }));
    await subscribe('/hook');
    // When the dispatcher starts each request (the receiver logs it on arrival, a moment later).
    const sentAt: number[] = [];
    const sender = harness.deps.sender;
    harness.deps.sender = {
      send: (request) => {
        sentAt.push(Date.now());
        return sender.send(request);
      },
    };
    const records = oneSubjectBatch(8);

    const deadline = Date.now() + 2 * ANSWER_MS + ANSWER_MS / 2;
    const result = await processDispatchBatch(records, harness.deps, { deadline });
    const endedAt = Date.now();

    // Nothing failed back to the queue: what was not sent is deferred a moment, not lost.
    expect(result.batchItemFailures).toEqual([]);
    const sent = receiver.log.length;
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(records.length);
    expect(sentAt).toHaveLength(sent);
    for (const at of sentAt) expect(at).toBeLessThan(deadline);
    // The request in flight at the deadline finished and was written; nothing waited longer.
    expect(endedAt - deadline).toBeLessThan(ANSWER_MS + 1_000);
    const deliveries = await harness.store.listDeliveries({ limit: 20 });
    expect(deliveries).toHaveLength(records.length);
    expect(deliveries.filter((d) => d.status === 'delivered')).toHaveLength(sent);
    expect(deliveries.filter((d) => d.status === 'pending')).toHaveLength(records.length - sent);
    expect(harness.queue.size).toBe(records.length - sent);

    // Another invocation (no deadline) sends the rest, each once, in the subject's order.
    for (let round = 0; round < 20 && receiver.log.length < records.length; round++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      await harness.drainVisible();
    }
    const ids = receiver.log.map((request) => JSON.parse(request.body).id as string);
    expect(ids).toEqual(records.map((_, n) => eventIdOf(n)));
  }, 20_000);

  it('does not wait past it for slots other processes hold: what waits is deferred then', async () => {
    const clock = new ManualClock(Date.now());
    const slots = new MemoryEndpointSlots(clock);
    const { receiver, harness, subscribe } = await startDispatchFixture(cleanup, undefined, {
      clock,
      scheduler: new EndpointScheduler(clock, slots.holder('this-container')),
    });
    const { subscription } = await subscribe('/busy');
    // Sixteen other containers hold one slot each of the endpoint's 16 and keep renewing them:
    // a fair part of 16 among 17 is 1, so this container gets none.
    const others = Array.from({ length: 16 }, (_, n) => slots.holder(`other-${n}`));
    const renewOthers = () =>
      Promise.all(others.map((o) => o.hold(endpointOfUrl(subscription.url), 1, 16)));
    await renewOthers();
    const records = [0, 1, 2].map((n) => ({
      messageId: `m-${n}`,
      body: envelope(changeEvent(eventIdOf(n), { subject: n < 2 ? 'c-1' : 'c-2' })),
    }));
    const started = clock.now();
    const deadline = started + 5_000;
    const batch = processDispatchBatch(records, harness.deps, { deadline });
    let settledAt: number | undefined;
    void batch.then(() => {
      settledAt = clock.now();
    });
    for (let waited = 0; settledAt === undefined && waited <= SLOT_WAIT_LIMIT_MS + 10_000; ) {
      if (waited % 10_000 === 0) await renewOthers();
      await clock.advance(500);
      waited += 500;
    }
    expect(await batch).toEqual({ batchItemFailures: [] });
    // Not the SLOT_WAIT_LIMIT_MS it would wait without one.
    expect(settledAt! - started).toBeLessThanOrEqual(deadline - started + 500);
    expect(receiver.log).toEqual([]);
    const deliveries = await harness.store.listDeliveries({
      subscriptionId: subscription.id,
      limit: 10,
    });
    expect(deliveries.map((d) => [d.status, d.attempts])).toEqual([
      ['pending', 0],
      ['pending', 0],
      ['pending', 0],
    ]);
    expect(harness.queue.size).toBe(3);
    // A subject's later event comes back after its earlier one.
    const due = new Map(deliveries.map((d) => [d.eventId, d.nextAttemptAt]));
    expect(due.get(eventIdOf(1))!).toBeGreaterThan(due.get(eventIdOf(0))!);
  });
});
