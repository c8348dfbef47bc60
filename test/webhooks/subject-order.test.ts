import { afterEach, describe, expect, it } from 'vitest';
import { MemoryWaitingLedger } from '../../shared/webhooks/waiting-ledger.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, envelope, eventIdOf } from './support/harness.ts';
import type { ReceivedRequest, ReceiverAction } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const idOf = (request: ReceivedRequest) => request.headers['webhook-id'];

describe('a subject’s order through retries', () => {
  it('holds a subject’s later event back for as long as an earlier one is retrying, over several retries', async () => {
    // The first event of the customer fails twice, then goes through; everything else succeeds.
    let firstEventFailures = 0;
    const answered: Array<[string | undefined, number]> = [];
    const { harness, subscribe, clock } = await startDispatchFixture(cleanup, (request) => {
      const id = idOf(request as ReceivedRequest);
      const status = id === eventIdOf(1) && firstEventFailures++ < 2 ? 500 : 200;
      answered.push([id, status]);
      return { kind: 'respond', status } satisfies ReceiverAction;
    });
    await subscribe('/ordered', { retrySchedule: [10_000, 60_000, 60_000] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1), { subject: 'c-1' })));
    await harness.drainVisible();
    await clock.advance(1_000);
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(2), { subject: 'c-1' })));
    await harness.drainVisible();
    // Through the first retry (~10 s), past the second (~60 s after it) and a little beyond.
    for (let step = 0; step < 120; step++) {
      await clock.advance(1_000);
      await harness.drainVisible();
    }

    expect(answered).toEqual([
      [eventIdOf(1), 500],
      [eventIdOf(1), 500],
      [eventIdOf(1), 200],
      [eventIdOf(2), 200],
    ]);
  }, 20_000);

  it('keeps three events of a subject in order when the first fails twice and the others arrive meanwhile', async () => {
    let firstEventFailures = 0;
    const answered: Array<string | undefined> = [];
    const { harness, subscribe, clock } = await startDispatchFixture(cleanup, (request) => {
      const id = idOf(request as ReceivedRequest);
      answered.push(id);
      const failing = id === eventIdOf(1) && firstEventFailures++ < 2;
      return { kind: 'respond', status: failing ? 500 : 200 } satisfies ReceiverAction;
    });
    await subscribe('/ordered', { retrySchedule: [10_000, 60_000, 60_000] });
    const arrivals = new Map([
      [0, 1],
      [1, 2],
      [30, 3],
    ]);
    for (let second = 0; second < 120; second++) {
      const n = arrivals.get(second);
      if (n !== undefined)
        harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n), { subject: 'c-1' })));
      await harness.drainVisible();
      await clock.advance(1_000);
    }

    expect(answered).toEqual([1, 1, 1, 2, 3].map(eventIdOf));
  }, 20_000);

  it('holds a subject’s later event behind a retry that a backlogged queue hands over minutes late', async () => {
    let firstEventFailures = 0;
    const answered: Array<[string | undefined, number]> = [];
    const { harness, subscribe, clock } = await startDispatchFixture(cleanup, (request) => {
      const id = idOf(request as ReceivedRequest);
      const status = id === eventIdOf(1) && firstEventFailures++ < 1 ? 500 : 200;
      answered.push([id, status]);
      return { kind: 'respond', status } satisfies ReceiverAction;
    });
    await subscribe('/ordered', { retrySchedule: [10_000, 60_000] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1), { subject: 'c-1' })));
    await harness.drainVisible();
    // The second change is queued a second later, ahead of the first one's retry (due in ~10 s);
    // then the consumer falls two minutes behind its queue (a backlog), and takes one at a time.
    await clock.advance(1_000);
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(2), { subject: 'c-1' })));
    await clock.advance(120_000);
    for (let step = 0; step < 120; step++) {
      await harness.drainVisible(1);
      await clock.advance(1_000);
    }

    expect(answered).toEqual([
      [eventIdOf(1), 500],
      [eventIdOf(1), 200],
      [eventIdOf(2), 200],
    ]);
  }, 20_000);
  for (const [name, options] of [
    ['by this process alone', () => ({})],
    ['with a waiting ledger', () => ({ waitingLedger: new MemoryWaitingLedger() })],
  ] as const) {
    it(`holds a later event behind a retry handed over more than 15 minutes late, ${name}`, async () => {
      let firstEventFailures = 0;
      const answered: Array<[string | undefined, number]> = [];
      const { harness, subscribe, clock } = await startDispatchFixture(
        cleanup,
        (request) => {
          const id = idOf(request as ReceivedRequest);
          const status = id === eventIdOf(1) && firstEventFailures++ < 1 ? 500 : 200;
          answered.push([id, status]);
          return { kind: 'respond', status } satisfies ReceiverAction;
        },
        options(),
      );
      await subscribe('/ordered', { retrySchedule: [10_000, 60_000] });
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1), { subject: 'c-1' })));
      await harness.drainVisible();
      await clock.advance(1_000);
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(2), { subject: 'c-1' })));
      // The consumer falls 20 minutes behind its queue: the first event's retry (due in ~10 s)
      // is handed over after the second event, long past the 15 minutes meant for lost retries.
      await clock.advance(20 * 60_000);
      for (let step = 0; step < 120; step++) {
        await harness.drainVisible(1);
        await clock.advance(1_000);
      }

      expect(answered).toEqual([
        [eventIdOf(1), 500],
        [eventIdOf(1), 200],
        [eventIdOf(2), 200],
      ]);
    }, 20_000);

    it(`sends a retry whose message was lost again before a later event of its subject, ${name}`, async () => {
      let firstEventFailures = 0;
      const answered: Array<[string | undefined, number]> = [];
      const { harness, subscribe, clock } = await startDispatchFixture(
        cleanup,
        (request) => {
          const id = idOf(request as ReceivedRequest);
          const status = id === eventIdOf(1) && firstEventFailures++ < 1 ? 500 : 200;
          answered.push([id, status]);
          return { kind: 'respond', status } satisfies ReceiverAction;
        },
        options(),
      );
      await subscribe('/ordered', { retrySchedule: [10_000, 60_000] });
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1), { subject: 'c-1' })));
      await harness.drainVisible();
      // The first event's retry message is lost (taken off the queue, never handled).
      await clock.advance(10_000);
      expect(harness.queue.receive(10)).toHaveLength(1);
      await clock.advance(20 * 60_000);
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(2), { subject: 'c-1' })));
      for (let step = 0; step < 120; step++) {
        await harness.drainVisible(1);
        await clock.advance(1_000);
      }

      expect(answered).toEqual([
        [eventIdOf(1), 500],
        [eventIdOf(1), 200],
        [eventIdOf(2), 200],
      ]);
      expect(harness.queue.size).toBe(0);
    }, 20_000);
  }
});
