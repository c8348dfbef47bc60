import { afterEach, describe, expect, it } from 'vitest';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, envelope, eventIdOf } from './support/harness.ts';
import type { ReceivedRequest, ReceiverAction } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const idOf = (request: ReceivedRequest) => request.headers['webhook-id'];

/** Successors of the failing event, made while it waits for its retry. */
const HELD_SUCCESSORS = 30;
/** The clock's step while the held events drain, and how long they are given. */
const STEP_MS = 10;
const DRAIN_WITHIN_MS = 100;

describe('a subject’s held-back events after its retry succeeds', () => {
  it('drains every held successor, in order, within milliseconds of the predecessor’s success', async () => {
    let failed = false;
    const answered: Array<{ id: string | undefined; status: number; at: number }> = [];
    const { harness, subscribe, clock } = await startDispatchFixture(cleanup, (request) => {
      const id = idOf(request as ReceivedRequest);
      const status = id === eventIdOf(1) && !failed ? 500 : 200;
      if (status === 500) failed = true;
      answered.push({ id, status, at: clock.now() });
      return { kind: 'respond', status } satisfies ReceiverAction;
    });
    await subscribe('/drain', { retrySchedule: [10_000] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1), { subject: 'c-1' })));
    await harness.drainVisible();
    // One successor every 230 ms: their deferred messages come due all through a second.
    for (let n = 2; n <= HELD_SUCCESSORS + 1; n++) {
      await clock.advance(230);
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n), { subject: 'c-1' })));
      await harness.drainVisible();
    }
    expect(answered.map(({ id }) => id)).toEqual([eventIdOf(1)]);
    // Up to the predecessor's successful retry, then a moment more.
    let succeededAt: number | undefined;
    for (let step = 0; step < 2_000 && succeededAt === undefined; step++) {
      await clock.advance(STEP_MS);
      await harness.drainVisible();
      succeededAt = answered.find((a) => a.id === eventIdOf(1) && a.status === 200)?.at;
    }
    expect(succeededAt).toBeDefined();
    while (clock.now() < succeededAt! + DRAIN_WITHIN_MS) {
      await clock.advance(STEP_MS);
      await harness.drainVisible();
    }

    const delivered = answered.filter(({ status }) => status === 200).map(({ id }) => id);
    const inOrder = Array.from({ length: HELD_SUCCESSORS + 1 }, (_, index) => eventIdOf(index + 1));
    expect(delivered).toEqual(inOrder);
  }, 30_000);
});
