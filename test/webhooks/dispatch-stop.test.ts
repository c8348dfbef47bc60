import { afterEach, describe, expect, it } from 'vitest';
import { type Clock, systemClock } from '../../shared/clock.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { DEADLINE_DEFER_MS } from '../../shared/webhooks/endpoint-lane-pump.ts';
import { UndiciWebhookSender } from '../../shared/webhooks/http-sender.ts';
import { waitFor } from '../support/wait-for.ts';
import { startDispatchFixture } from './support/fixture.ts';
import {
  anotherProcess,
  changeEvent,
  envelope,
  eventIdOf,
  loopbackResolver,
} from './support/harness.ts';
import { startReceiver } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const HOUR_MS = 3_600_000;

/**
 * Gives `harness` a real sender whose requests in flight the returned controller cuts off, as
 * the local run's stop does (its hour-long timeout never fires in a test).
 */
function stoppableSender(harness: { deps: { sender: unknown } }, clock: Clock): AbortController {
  const cutOff = new AbortController();
  const sender = new UndiciWebhookSender({
    policy: { allowPrivate: true },
    resolve: loopbackResolver,
    clock,
    timeoutMs: HOUR_MS,
    stopSignal: cutOff.signal,
  });
  cleanup.push(() => sender.close());
  harness.deps.sender = sender;
  return cutOff;
}

/** Events 0–2 of one customer (in that order), 3–5 of a customer each. */
function records() {
  return Array.from({ length: 6 }, (_, n) => ({
    messageId: `m-${n}`,
    body: envelope(changeEvent(eventIdOf(n), { subject: n < 3 ? 'c-chain' : `c-${n}` })),
  }));
}

/** Events of a customer each. */
function distinctSubjects() {
  return Array.from({ length: 6 }, (_, n) => ({
    messageId: `m-${n}`,
    body: envelope(changeEvent(eventIdOf(n))),
  }));
}

// `change-bridge start` asked to stop: its batches must end now, not at a deadline an hour off
// (or, in the local run, none at all), and lose nothing.
describe('a batch whose process stops sending', () => {
  it('defers its new deliveries not yet sent at once, and cuts off the request in flight as no attempt', async () => {
    let answering = false;
    const { receiver, harness, subscribe, clock } = await startDispatchFixture(cleanup, () =>
      answering ? { kind: 'respond', status: 200 } : { kind: 'hang' },
    );
    // One request at a time: the first hangs, the other five wait in the endpoint's line.
    await subscribe('/hook', { maxConcurrency: 1 });
    const cutOff = stoppableSender(harness, clock);
    const deadline = clock.now() + HOUR_MS;
    let ended = false;
    const batch = processDispatchBatch(records(), harness.deps, { deadline }).finally(() => {
      ended = true;
    });
    await waitFor(() => receiver.log.length === 1, 5_000, 'the first request');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ended).toBe(false);

    const stoppedAt = clock.now();
    harness.deps.scheduler.stopSending();
    cutOff.abort();
    // The manual clock stands still: no timer of the lane (its deadline, its line check) fires.
    expect(await batch).toEqual({ batchItemFailures: [] });
    expect(clock.now()).toBe(stoppedAt);
    expect(receiver.log).toHaveLength(1);
    const deliveries = await harness.store.listDeliveries({ limit: 10 });
    expect(deliveries.map((d) => [d.eventId, d.status, d.attempts]).sort()).toEqual(
      records().map((_, n) => [eventIdOf(n), 'pending', 0]),
    );
    // Due as the next run starts; a subject's later events just after its earlier ones.
    const due = new Map(deliveries.map((d) => [d.eventId, d.nextAttemptAt - stoppedAt]));
    for (const dueIn of due.values()) {
      expect(dueIn).toBeGreaterThanOrEqual(DEADLINE_DEFER_MS);
      expect(dueIn).toBeLessThan(DEADLINE_DEFER_MS + 10);
    }
    expect(due.get(eventIdOf(1))!).toBeGreaterThan(due.get(eventIdOf(0))!);
    expect(due.get(eventIdOf(2))!).toBeGreaterThan(due.get(eventIdOf(1))!);
    expect(harness.queue.size).toBe(records().length);

    // The next run (another process on the same store and queue) sends each once, in order.
    answering = true;
    const next = anotherProcess(harness.deps);
    next.sender = harness.sender;
    for (let round = 0; round < 10 && receiver.log.length <= records().length; round++) {
      await clock.advance(DEADLINE_DEFER_MS);
      await harness.drainVisible(10, next);
    }
    const sent = receiver.log.slice(1).map((request) => JSON.parse(request.body).id as string);
    expect([...sent].sort()).toEqual(records().map((_, n) => eventIdOf(n)));
    const chain = sent.filter((id) => [0, 1, 2].map(eventIdOf).includes(id));
    expect(chain).toEqual([0, 1, 2].map(eventIdOf));
    const after = await harness.store.listDeliveries({ limit: 10 });
    expect(after.map((d) => [d.status, d.attempts])).toEqual(records().map(() => ['delivered', 1]));
  });
  it.each(['bulk', 'live'] as const)(
    'keeps the lane of the %s deliveries it defers, the one cut off in flight included: the next run takes bulk ones behind its live work',
    async (lane) => {
      // The local run's lanes (no deadline): a backfill's deliveries wait in the endpoint's line
      // when `start` stops. They come back on the dispatch queue; without their lane bulk ones would
      // be taken as live work, ahead of the next run's live changes. Live ones are marked alike.
      const { receiver, harness, subscribe, clock } = await startDispatchFixture(cleanup, () => ({
        kind: 'hang',
      }));
      await subscribe('/hook', { maxConcurrency: 1 });
      const cutOff = stoppableSender(harness, clock);
      // A customer's three events (each due after the one before it) and three customers'.
      const batch = processDispatchBatch(records(), harness.deps, { lane });
      await waitFor(() => receiver.log.length === 1, 5_000, 'the first request');
      // The stop's hold is read a moment after the deferred work starts.
      await clock.advance(3);
      harness.deps.scheduler.stopSending();
      cutOff.abort();
      expect(await batch).toEqual({ batchItemFailures: [] });
      // The five that waited in the line keep it, and so does the one cut off in flight.
      expect(harness.queue.waitingInLine).toBe(records().length);
      // A subject's later deliveries are due after its earlier ones (the queue's whole seconds).
      await clock.advance(5 * DEADLINE_DEFER_MS);
      const lanes = harness.queue
        .receive(10)
        .map((message) => (JSON.parse(message.body) as { lane?: string }).lane ?? 'none');
      expect(lanes).toEqual(records().map(() => lane));
    },
  );

  it('wakes its lane at the stop: the work its rate limit spaces out defers itself without waiting for its turn or its deadline', async () => {
    const { receiver, harness, subscribe, clock } = await startDispatchFixture(cleanup);
    // A request a minute: the first goes at once, the others wait for spacing timers.
    await subscribe('/hook', { rateLimitPerSecond: 1 / 60 });
    const deadline = clock.now() + HOUR_MS;
    const batch = processDispatchBatch(distinctSubjects(), harness.deps, { deadline });
    await waitFor(() => receiver.log.length === 1, 5_000, 'the first request');
    await new Promise((resolve) => setTimeout(resolve, 100));

    const stoppedAt = clock.now();
    harness.deps.scheduler.stopSending();
    // The manual clock stands still: no timer of the lane (spacing, deadline, line check) fires.
    expect(await batch).toEqual({ batchItemFailures: [] });
    expect(clock.now()).toBe(stoppedAt);
    expect(receiver.log).toHaveLength(1);
    const deliveries = await harness.store.listDeliveries({ limit: 10 });
    expect(deliveries.map((d) => d.status).sort()).toEqual([
      'delivered',
      ...Array.from({ length: 5 }, () => 'pending'),
    ]);
    for (const delivery of deliveries.filter((d) => d.status === 'pending'))
      expect([delivery.attempts, delivery.nextAttemptAt]).toEqual([
        0,
        stoppedAt + DEADLINE_DEFER_MS,
      ]);
  });

  it('leaves its delivery messages not yet attempted in the queue untouched (their records fail, nothing written) and defers the one cut off', async () => {
    let answer: 'fail' | 'hang' = 'fail';
    const { receiver, harness, subscribe, clock } = await startDispatchFixture(cleanup, () =>
      answer === 'fail' ? { kind: 'respond', status: 500 } : { kind: 'hang' },
    );
    const { subscription } = await subscribe('/hook', { maxConcurrency: 1 });
    const cutOff = new AbortController();
    harness.deps.sender = new UndiciWebhookSender({
      policy: { allowPrivate: true },
      resolve: loopbackResolver,
      clock,
      timeoutMs: HOUR_MS,
      stopSignal: cutOff.signal,
    });
    cleanup.push(async () => cutOff.abort());
    // Six deliveries failed once: six retry messages, due in about 5 s.
    await processDispatchBatch(distinctSubjects(), harness.deps);
    await clock.advance(10_000);
    const retries = harness.queue.receive(10);
    expect(retries).toHaveLength(6);
    const stored = async () =>
      new Map(
        (await harness.store.listDeliveries({ subscriptionId: subscription.id, limit: 10 })).map(
          (d) => [d.id, d],
        ),
      );
    const before = await stored();

    answer = 'hang';
    const batch = processDispatchBatch(retries, harness.deps, { deadline: clock.now() + HOUR_MS });
    await waitFor(() => receiver.log.length === 7, 5_000, 'the first retry');
    const stoppedAt = clock.now();
    harness.deps.scheduler.stopSending();
    cutOff.abort();
    const { batchItemFailures } = await batch;
    expect(receiver.log).toHaveLength(7);
    // The five that waited behind the hanging request: left for the next run to receive again.
    const left = new Set(batchItemFailures.map((failure) => failure.itemIdentifier));
    expect(left.size).toBe(5);
    const after = await stored();
    for (const record of retries) {
      const { deliveryId } = JSON.parse(record.body) as { deliveryId: string };
      const delivery = after.get(deliveryId);
      if (left.has(record.messageId)) expect(delivery).toEqual(before.get(deliveryId));
      else {
        // The request cut off is no attempt: its delivery is deferred as it was.
        expect(delivery).toMatchObject({
          status: 'pending',
          attempts: 1,
          nextAttemptAt: stoppedAt + DEADLINE_DEFER_MS,
        });
      }
    }
  });

  it.each(['bulk', 'live'] as const)(
    'sends the %s retry it cuts off in flight back as work of its lane',
    async (lane) => {
      // The local run's bulk lane: a backfill's retry whose request the stop cuts off comes back
      // on the dispatch queue for the next run, where as live work it would go ahead of that
      // run's live changes. A live one is marked alike.
      let answer: 'fail' | 'hang' = 'fail';
      const { receiver, harness, subscribe, clock } = await startDispatchFixture(cleanup, () =>
        answer === 'fail' ? { kind: 'respond', status: 500 } : { kind: 'hang' },
      );
      await subscribe('/hook', { maxConcurrency: 1 });
      const cutOff = stoppableSender(harness, clock);
      await processDispatchBatch(distinctSubjects().slice(0, 1), harness.deps, { lane });
      await clock.advance(10_000);
      const retries = harness.queue.receive(10);
      expect(retries).toHaveLength(1);

      answer = 'hang';
      const batch = processDispatchBatch(retries, harness.deps, { lane });
      await waitFor(() => receiver.log.length === 2, 5_000, 'the retry');
      harness.deps.scheduler.stopSending();
      cutOff.abort();
      expect(await batch).toEqual({ batchItemFailures: [] });
      await clock.advance(2 * DEADLINE_DEFER_MS);
      const lanes = harness.queue
        .receive(10)
        .map((message) => (JSON.parse(message.body) as { lane?: string }).lane ?? 'none');
      expect(lanes).toEqual([lane]);
    },
  );
});

describe('a webhook sender told to stop', () => {
  it('cuts off its requests in flight and makes no more, each answered stopped', async () => {
    const receiver = await startReceiver(() => ({ kind: 'hang' }));
    const cutOff = new AbortController();
    const sender = new UndiciWebhookSender({
      policy: { allowPrivate: true },
      resolve: loopbackResolver,
      clock: systemClock,
      timeoutMs: HOUR_MS,
      stopSignal: cutOff.signal,
    });
    cleanup.push(
      () => sender.close(),
      () => receiver.close(),
    );
    const request = { url: receiver.url('/hook'), headers: {}, body: '{}' };
    const inFlight = [sender.send(request), sender.send(request)];
    await waitFor(() => receiver.log.length === 2, 5_000, 'both requests');
    cutOff.abort();
    for (const result of await Promise.all(inFlight))
      expect(result).toMatchObject({ kind: 'stopped' });
    expect(await sender.send(request)).toEqual({ kind: 'stopped', latencyMs: 0 });
    expect(receiver.log).toHaveLength(2);
  });
});
