import { afterEach, describe, expect, it } from 'vitest';
import { requeuePendingDeliveries } from '../../shared/local/dispatch-recovery.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { startDispatchFixture } from '../webhooks/support/fixture.ts';
import { anotherProcess, changeEvent, envelope, eventIdOf } from '../webhooks/support/harness.ts';
import type { ReceivedRequest } from '../webhooks/support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('requeuePendingDeliveries', () => {
  it('keeps a subject’s new event behind its delivery that waits for a retry, across a restart', async () => {
    const answered: Array<string | undefined> = [];
    let failFirst = true;
    const { harness, subscribe, clock } = await startDispatchFixture(cleanup, (request) => {
      const id = (request as ReceivedRequest).headers['webhook-id'];
      answered.push(id);
      const status = id === eventIdOf(1) && failFirst ? 500 : 200;
      failFirst &&= id !== eventIdOf(1);
      return { kind: 'respond', status };
    });
    await subscribe('/ordered', { retrySchedule: [10_000] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1), { subject: 'c-1' })));
    await harness.drainVisible();

    // A new process: the same store and queue, a scheduler that knows nothing yet.
    const restarted = anotherProcess(harness.deps);
    expect(await requeuePendingDeliveries(restarted)).toBe(1);
    await clock.advance(1_000);
    await processDispatchBatch(
      [{ messageId: 'm2', body: envelope(changeEvent(eventIdOf(2), { subject: 'c-1' })) }],
      restarted,
    );
    expect(answered).toEqual([eventIdOf(1)]);

    for (let second = 0; second < 20; second++) {
      await clock.advance(1_000);
      await processDispatchBatch(harness.queue.receive(10), restarted);
    }
    expect(answered).toEqual([1, 1, 2].map(eventIdOf));
  });
});
