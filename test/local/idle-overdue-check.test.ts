import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  IDLE_CHECK_AFTER_MS,
  idleCheckDue,
  startIdleOverdueCheck,
} from '../../shared/local/idle-overdue-check.ts';
import { checkLongOverdueWaiting } from '../../shared/webhooks/dispatcher.ts';
import { waitFor } from '../support/wait-for.ts';
import { startDispatchFixture } from '../webhooks/support/fixture.ts';
import { changeEvent, envelope, eventIdOf } from '../webhooks/support/harness.ts';
import type { ReceivedRequest } from '../webhooks/support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A few real milliseconds: many looks of a check that looks every millisecond. */
const someLooks = () => new Promise((resolve) => setTimeout(resolve, 30));

const MINUTE = 60_000;

describe('idleCheckDue', () => {
  const idle = { now: 20 * MINUTE, lastActiveAt: 0, batchesRunning: 0, anyWaiting: true };

  it('is due once no batch has run for the idle period and something waits', () => {
    expect(idleCheckDue({ ...idle, idleMs: 15 * MINUTE })).toBe(true);
    expect(idleCheckDue({ ...idle, idleMs: 20 * MINUTE })).toBe(true);
    expect(idleCheckDue({ ...idle, idleMs: 21 * MINUTE })).toBe(false);
  });

  it('is not due while a batch runs, nor when nothing waits', () => {
    expect(idleCheckDue({ ...idle, batchesRunning: 1, idleMs: 15 * MINUTE })).toBe(false);
    expect(idleCheckDue({ ...idle, anyWaiting: false, idleMs: 15 * MINUTE })).toBe(false);
  });
});

describe('startIdleOverdueCheck', () => {
  const started = (clock: ManualClock, anyWaiting = () => true) => {
    let checks = 0;
    const idle = startIdleOverdueCheck({
      clock,
      anyWaiting,
      check: async () => {
        checks++;
      },
      onError: () => undefined,
      lookEveryMs: 1,
    });
    cleanup.push(() => idle.stop());
    return { idle, checks: () => checks };
  };

  it('checks once no batch has run for 15 minutes, then once per further idle period', async () => {
    const clock = new ManualClock(1_000_000);
    const { checks } = started(clock);
    await clock.advance(IDLE_CHECK_AFTER_MS - 1);
    await someLooks();
    expect(checks()).toBe(0);
    await clock.advance(1);
    await waitFor(() => checks() === 1, 2_000, 'the idle check');
    await someLooks();
    expect(checks()).toBe(1);
    await clock.advance(IDLE_CHECK_AFTER_MS);
    await waitFor(() => checks() === 2, 2_000, 'the next idle check');
  });

  it('does not check while a batch runs, nor within 15 minutes after one', async () => {
    const clock = new ManualClock(1_000_000);
    const { idle, checks } = started(clock);
    let finish = () => {};
    const running = idle.batch(() => new Promise<void>((resolve) => (finish = resolve)));
    await clock.advance(2 * IDLE_CHECK_AFTER_MS);
    await someLooks();
    expect(checks()).toBe(0);
    finish();
    await running;
    await clock.advance(IDLE_CHECK_AFTER_MS - 1);
    await someLooks();
    expect(checks()).toBe(0);
    await clock.advance(1);
    await waitFor(() => checks() === 1, 2_000, 'the idle check after the batch');
  });

  it('does not check while the memory notes no waiting delivery', async () => {
    const clock = new ManualClock(1_000_000);
    const { checks } = started(clock, () => false);
    await clock.advance(2 * IDLE_CHECK_AFTER_MS);
    await someLooks();
    expect(checks()).toBe(0);
  });

  it('stops looking once stopped, after the check under way', async () => {
    const clock = new ManualClock(1_000_000);
    let checks = 0;
    let finish = () => {};
    const idle = startIdleOverdueCheck({
      clock,
      anyWaiting: () => true,
      check: () => {
        checks++;
        return new Promise<void>((resolve) => (finish = resolve));
      },
      onError: () => undefined,
      lookEveryMs: 1,
    });
    await clock.advance(IDLE_CHECK_AFTER_MS);
    await waitFor(() => checks === 1, 2_000, 'the idle check');
    let stopped = false;
    const stopping = idle.stop().then(() => {
      stopped = true;
    });
    await someLooks();
    expect(stopped).toBe(false);
    finish();
    await stopping;
    await clock.advance(2 * IDLE_CHECK_AFTER_MS);
    await someLooks();
    expect(checks).toBe(1);
  });
});

describe('an idle local run', () => {
  it('sends a delivery whose retry message was dropped again while no other event arrives', async () => {
    let answered = 0;
    const { harness, subscribe, clock, receiver } = await startDispatchFixture(
      cleanup,
      (request) => {
        answered++;
        const id = (request as ReceivedRequest).headers['webhook-id'];
        return { kind: 'respond', status: answered === 1 && id === eventIdOf(1) ? 500 : 200 };
      },
    );
    await subscribe('/idle', { retrySchedule: [MINUTE] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1), { subject: 'c-1' })));
    await harness.drainVisible();
    expect(answered).toBe(1);

    // Its retry message is lost: taken from the queue when due and never handled.
    await clock.advance(MINUTE);
    const dropped = harness.queue.receive(10).map((message) => JSON.parse(message.body));
    expect(dropped).toMatchObject([{ kind: 'delivery' }]);
    const deliveryId = dropped[0].deliveryId as string;

    // No event arrives and no batch runs: the run's idle check asks the store as a batch would.
    const errors: unknown[] = [];
    const idle = startIdleOverdueCheck({
      clock,
      anyWaiting: () => harness.deps.scheduler.anyWaiting,
      check: () => checkLongOverdueWaiting(harness.deps),
      onError: (error) => errors.push(error),
      lookEveryMs: 1,
    });
    cleanup.push(() => idle.stop());
    for (let minute = 0; minute < 31 && harness.queue.size === 0; minute++) {
      await clock.advance(MINUTE);
      await someLooks();
    }
    const resent = await waitFor(
      () => {
        const visible = harness.queue.receive(10);
        return visible.length > 0 && visible;
      },
      2_000,
      'the retry sent again',
    );
    expect(resent.map((message) => JSON.parse(message.body))).toEqual([
      { kind: 'delivery', deliveryId, subscriptionId: dropped[0].subscriptionId, subject: 'c-1' },
    ]);
    for (const message of resent) harness.queue.sendRaw(message.body);
    await harness.drainVisible();
    expect(receiver.log.map((request) => request.headers['webhook-id'])).toEqual([
      eventIdOf(1),
      eventIdOf(1),
    ]);
    expect(await harness.store.getDelivery(deliveryId)).toMatchObject({ status: 'delivered' });
    expect(errors).toEqual([]);
  });
});
