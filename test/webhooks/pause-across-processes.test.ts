import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { anotherProcess, changeEvent, envelope, eventIdOf } from './support/harness.ts';
import { startLocalTable } from './support/local-dynamodb.ts';
import type { ReceivedRequest } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A request the receiver answers slowly: the long batch's deliveries take this long each. */
const ANSWER_MS = 250;
const RETRY_AFTER_SECONDS = 4;

describe('a Retry-After answered to another process (AWS: another dispatcher container)', () => {
  it('holds in a batch already running there within about a second, not only from its next batch', async () => {
    let pausedAt = 0;
    const { receiver, harness, subscribe } = await startDispatchFixture(
      cleanup,
      (request) => {
        if ((request as ReceivedRequest).headers['webhook-id'] === eventIdOf(999)) {
          pausedAt = Date.now();
          return {
            kind: 'respond',
            status: 429,
            headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
          };
        }
        return { kind: 'respond', status: 200, delayMs: ANSWER_MS };
      },
      { clock: systemClock },
    );
    await subscribe('/shared', { maxConcurrency: 2 });
    // Process A: one batch of 40 events, two at a time, ~5 s of sending. Of two subjects, each
    // with one in flight at all times: none is deferred for its place in the endpoint's line.
    const processA = harness.deps;
    const processB = anotherProcess(harness.deps);
    const batchOfA = Array.from({ length: 40 }, (_, n) => ({
      messageId: `a-${n}`,
      body: envelope(changeEvent(eventIdOf(n), { subject: `c-${n % 2}` })),
    }));
    const runningA = processDispatchBatch(batchOfA, processA);
    await systemClock.sleep(600);
    // Process B: one event, answered 429 with Retry-After 4 s; B stores the endpoint's pause.
    await processDispatchBatch(
      [{ messageId: 'b-1', body: envelope(changeEvent(eventIdOf(999))) }],
      processB,
    );
    await runningA;

    expect(pausedAt).toBeGreaterThan(0);
    // A reads the endpoint's state again once its read is a second old (ENDPOINT_STATE_FRESH_MS):
    // a read made just before B stored the pause misses it, the next one a second later does not.
    const heldFrom = pausedAt + 2 * 1_000 + ANSWER_MS;
    const tooEarly = receiver.log.filter(
      (r) => r.at > heldFrom && r.at < pausedAt + RETRY_AFTER_SECONDS * 1000,
    );
    expect(tooEarly.map((r) => r.headers['webhook-id'])).toEqual([]);
    // A went on sending after the 429 until its read was renewed: the pause reached a running batch.
    expect(receiver.log.filter((r) => r.at > pausedAt).length).toBeGreaterThan(0);
    // What A did not send waits for the pause to end; nothing is lost.
    const [subscription] = await harness.service.listSubscriptions();
    const deliveries = await harness.store.listDeliveries({
      subscriptionId: subscription!.id,
      limit: 100,
    });
    expect(deliveries).toHaveLength(41);
    const waiting = deliveries.filter((d) => d.status !== 'delivered');
    expect(waiting.length).toBeGreaterThan(1);
    for (const delivery of waiting) {
      expect(delivery.status).toBe('pending');
      expect(delivery.nextAttemptAt).toBeGreaterThanOrEqual(pausedAt + 3_000);
    }
  }, 20_000);

  it('is not erased by a success in another process that read the state before the pause', async () => {
    let pausedAt = 0;
    const { harness, subscribe } = await startDispatchFixture(
      cleanup,
      (request) => {
        if ((request as ReceivedRequest).headers['webhook-id'] === eventIdOf(2)) {
          pausedAt = Date.now();
          return { kind: 'respond', status: 429, headers: { 'retry-after': '30' } };
        }
        // Answered within the second A goes by its read (ENDPOINT_STATE_FRESH_MS) of the state.
        return { kind: 'respond', status: 200, delayMs: 800 };
      },
      { clock: systemClock },
    );
    const { subscription } = await subscribe('/shared');
    const processB = anotherProcess(harness.deps);
    // The endpoint failed once before: A's success will clear that (a change it stores).
    await harness.store.putEndpointState(
      {
        subscriptionId: subscription.id,
        consecutiveFailures: 1,
        failingSince: Date.now() - 1_000,
        failingNotified: false,
      },
      { ifVersion: undefined },
    );
    const event = (n: number) => [
      { messageId: `m-${n}`, body: envelope(changeEvent(eventIdOf(n))) },
    ];
    // A reads the state and sends; while its request waits for the answer, B is answered 429.
    const runningA = processDispatchBatch(event(1), harness.deps);
    await systemClock.sleep(100);
    await processDispatchBatch(event(2), processB);
    await runningA;

    expect(pausedAt).toBeGreaterThan(0);
    const stored = await harness.store.getEndpointState(subscription.id);
    // B's pause still stands after A's success was stored.
    expect(stored?.pausedUntil).toBeGreaterThanOrEqual(pausedAt + 29_000);
  });

  it('counts every failure that deliveries in two processes meet at once', async () => {
    const { harness, subscribe } = await startDispatchFixture(
      cleanup,
      () => ({ kind: 'respond', status: 500, delayMs: 50 }),
      { clock: systemClock, store: await dynaliteStore() },
    );
    const { subscription } = await subscribe('/failing', { maxConcurrency: 4 });
    const batch = (process: string) =>
      Array.from({ length: 4 }, (_, n) => ({
        messageId: `${process}-${n}`,
        body: envelope(changeEvent(eventIdOf(process === 'a' ? n : 100 + n))),
      }));
    // Each process reads the endpoint healthy, then its four deliveries fail together.
    await Promise.all([
      processDispatchBatch(batch('a'), harness.deps),
      processDispatchBatch(batch('b'), anotherProcess(harness.deps)),
    ]);
    expect(await harness.store.getEndpointState(subscription.id)).toMatchObject({
      consecutiveFailures: 8,
      failingNotified: true,
    });
    const failing = harness.sink.events.filter((e) => e.type === 'delivery.failing');
    expect(failing).toHaveLength(1);
  });
});

/** A webhook store on a dynalite table of its own, stopped with the test's cleanup. */
async function dynaliteStore(): Promise<DynamoDbWebhookStore> {
  const table = await startLocalTable('failures-across-processes');
  cleanup.push(() => table.stop());
  return new DynamoDbWebhookStore({
    client: table.client,
    tableName: table.tableName,
    clock: systemClock,
  });
}
