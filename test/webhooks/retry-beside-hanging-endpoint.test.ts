import { afterEach, describe, expect, it } from 'vitest';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { waitFor } from '../support/wait-for.ts';
import { startRealTimeFixture } from './support/fixture.ts';
import { changeEvent, envelope, eventIdOf } from './support/harness.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** The request timeout: far longer than the failing endpoint's first retry step. */
const TIMEOUT_MS = 4_000;

describe('a retry beside a hanging endpoint', () => {
  it("is due on its own schedule, not when another endpoint's request in the same batch times out", async () => {
    const { receiver, harness, subscribe } = await startRealTimeFixture(
      cleanup,
      (request) =>
        request.path === '/hanging'
          ? { kind: 'hang' }
          : { kind: 'respond', status: receiver.log.length > 2 ? 204 : 500 },
      { timeoutMs: TIMEOUT_MS },
    );
    await subscribe('/hanging');
    // Retried 500 ms (±20 %) after its failure: the queue makes that a delay of 1 s.
    const { subscription: failing } = await subscribe('/failing', { retrySchedule: [500] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1))));

    let batchEnded = false;
    const batch = processDispatchBatch(harness.queue.receive(10), harness.deps).finally(() => {
      batchEnded = true;
    });
    await waitFor(
      () => receiver.log.some((request) => request.path === '/failing'),
      TIMEOUT_MS,
      'the failing endpoint answered 500',
    );
    // Its retry message is in the queue, due within about a second, while /hanging still
    // holds the batch: its request not yet given up, the batch not ended. Before, it was sent
    // only once that request timed out.
    const seen = await waitFor(
      () =>
        harness.queue.size > 0 && {
          batchEnded,
          hangingGivenUp: receiver.abandoned.some((request) => request.path === '/hanging'),
        },
      TIMEOUT_MS + 2_000,
      'the retry message of /failing',
    );
    expect(seen).toEqual({ batchEnded: false, hangingGivenUp: false });
    await batch;
    // The hanging request was given up at its timeout (what the retry did not wait for).
    await waitFor(() => receiver.abandoned.length > 0, 2_000, 'the hanging request given up');
    expect(receiver.abandoned.map((request) => request.path)).toEqual(['/hanging']);

    const [delivery] = await harness.service.listDeliveries({ subscriptionId: failing.id });
    expect(delivery?.delivery).toMatchObject({ status: 'pending', lastStatus: 500 });
  }, 15_000);
});
