import { afterEach, describe, expect, it } from 'vitest';
import { DynamoDbWaitingLedger } from '../../shared/webhooks/dynamodb-waiting-ledger.ts';
import { MemoryWaitingLedger, type WaitingLedger } from '../../shared/webhooks/waiting-ledger.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { anotherProcess, changeEvent, envelope, eventIdOf } from './support/harness.ts';
import { startLocalTable } from './support/local-dynamodb.ts';
import type { ReceivedRequest, ReceiverAction } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/**
 * Two dispatcher processes (as two containers of the dispatcher Lambda) on one store and one
 * queue, each with its own scheduler and memory, and the waiting ledger when given. The first
 * event of customer c-1 fails once at process A; the second arrives a second later at process
 * B; the retries are handled by B; a third event arrives at A once the first is delivered.
 * Returns what the receiver was asked, in order, with the second of the run it was asked at,
 * and the subscription's id.
 */
async function twoProcesses(ledger?: WaitingLedger) {
  const startedAt = Date.now();
  let firstFailed = false;
  const answered: Array<[string | undefined, number, number]> = [];
  const { harness, subscribe, clock } = await startDispatchFixture(
    cleanup,
    (request) => {
      const id = (request as ReceivedRequest).headers['webhook-id'];
      const status = id === eventIdOf(1) && !firstFailed ? 500 : 200;
      if (status === 500) firstFailed = true;
      answered.push([id, status, Math.round((clock.now() - startedAt) / 1000)]);
      return { kind: 'respond', status } satisfies ReceiverAction;
    },
    { clock: undefined, ...(ledger ? { waitingLedger: ledger } : {}) },
  );
  const processA = harness.deps;
  const processB = anotherProcess(harness.deps);
  const subscription = await subscribe('/ordered', { retrySchedule: [10_000, 60_000] });
  const event = (n: number) => envelope(changeEvent(eventIdOf(n), { subject: 'c-1' }));

  harness.queue.sendRaw(event(1));
  await harness.drainVisible(10, processA);
  await clock.advance(1_000);
  harness.queue.sendRaw(event(2));
  await harness.drainVisible(10, processB);
  for (let second = 2; second < 40; second++) {
    await clock.advance(1_000);
    await harness.drainVisible(10, processB);
  }
  // 39 s in.
  harness.queue.sendRaw(event(3));
  await harness.drainVisible(10, processA);
  for (let second = 40; second < 50; second++) {
    await clock.advance(1_000);
    await harness.drainVisible(10, processB);
  }
  return { answered, subscriptionId: subscription.subscription.id };
}

describe('a subject’s order across dispatcher processes', () => {
  it('with the waiting ledger: a later event that reaches another process waits for the earlier one’s retry', async () => {
    const { answered } = await twoProcesses(new MemoryWaitingLedger());
    expect(answered.map(([id, status]) => [id, status])).toEqual([
      [eventIdOf(1), 500],
      [eventIdOf(1), 200],
      [eventIdOf(2), 200],
      [eventIdOf(3), 200],
    ]);
    // The first event's retry went ~10 s in (±20 %), the second just after it; the third, at
    // process A, whose own memory still had the first waiting (B delivered it since), at once.
    const [, retried, second, third] = answered;
    expect(retried![2]).toBeGreaterThanOrEqual(8);
    expect(retried![2]).toBeLessThanOrEqual(13);
    expect(second![2] - retried![2]).toBeLessThanOrEqual(2);
    expect(third![2]).toBe(39);
  }, 20_000);

  it('with the ledger in the state table (dynalite), the same', async () => {
    const table = await startLocalTable('order-across-processes');
    cleanup.push(() => table.stop());
    const ledger = new DynamoDbWaitingLedger({ client: table.client, tableName: table.tableName });
    const { answered, subscriptionId } = await twoProcesses(ledger);
    expect(answered.map(([id]) => id)).toEqual([1, 1, 2, 3].map(eventIdOf));
    // Everything waited for was delivered: nothing is left waiting at the endpoint.
    expect(await ledger.countAt(subscriptionId)).toBe(0);
  }, 20_000);

  it('without it (each process’s memory alone), the later event overtakes the retry: the control', async () => {
    const { answered } = await twoProcesses();
    expect(answered.map(([id, status]) => [id, status])).toEqual([
      [eventIdOf(1), 500],
      [eventIdOf(2), 200],
      [eventIdOf(1), 200],
      [eventIdOf(3), 200],
    ]);
  }, 20_000);
});
