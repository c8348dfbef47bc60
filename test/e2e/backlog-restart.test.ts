import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { StreamViewSchema } from '../../shared/admin/schemas.ts';
import { adminCaller } from '../support/admin-call.ts';
import { waitFor } from '../support/wait-for.ts';
import { backfillOrder, changeCustomers } from './backfill-order.ts';
import { useCustomerBridge } from './customer-bridge.ts';

type StreamView = z.infer<typeof StreamViewSchema>;

/** Undelivered messages (visible or in flight) above which detection pauses in this test. */
const MAX_BACKLOG = 20;
/** Poll runs in a row without progress that count as "paused". */
const STALLED_RUNS = 3;

describe('backpressure of change-bridge start, across a SIGKILL', () => {
  const fixture = useCustomerBridge({
    seed: 13,
    dataDirPrefix: 'bridge-backlog-',
    // Every 500 ms: a pause shows after three polls in a row that moved nothing, twice.
    pollInterval: '500ms',
    env: { BRIDGE_MAX_BACKLOG: String(MAX_BACKLOG) },
  });

  const order = backfillOrder(
    adminCaller(() => fixture.bridge.api),
    () => fixture.receiver,
  );
  const { customerStream, subjectsOf } = order;
  /**
   * Resolves once the stream was polled {@link STALLED_RUNS} times in a row (its lastPollAt moved)
   * without its backfill pass's window or watermark moving and without an error: the backfill's
   * detection is paused (its live polls go on).
   */
  const pausedStream = async (): Promise<StreamView> => {
    let progress = '';
    let lastPollAt: string | null = null;
    let stalledRuns = 0;
    return waitFor(
      async () => {
        const stream = await customerStream();
        if (!stream || stream.lastError !== null) return undefined;
        const pass = stream.backfillPass;
        if (!pass) return undefined;
        const now = JSON.stringify([pass.watermark, pass.windowInProgress]);
        if (now !== progress) [progress, stalledRuns] = [now, 0];
        else if (stream.lastPollAt !== lastPollAt) stalledRuns++;
        lastPollAt = stream.lastPollAt;
        return stalledRuns >= STALLED_RUNS ? stream : undefined;
      },
      8_000,
      'the customer stream to pause',
      50,
    );
  };

  it('pauses a backfill while deliveries lag, keeps the backlog on disk through a crash, and delivers every event once they drain, each customer’s in detection order', async () => {
    fixture.bridge.start();
    // Start-up and a first sync take a few seconds alone, several times that beside other tests.
    await waitFor(async () => (await customerStream())?.initialSyncDone, 45_000, 'the first sync');
    // Held deliveries time out; retries every second so none waits out a 5-minute step.
    await order.subscribe({ retrySchedule: Array.from({ length: 20 }, () => 1_000) });

    // The endpoint stops answering; a backfill with emit publishes a created event per customer.
    fixture.receiver.hold();
    const job = await order.startBackfill();
    const paused = await pausedStream();
    expect(paused.backfillPass?.jobId).toBe(job.id);
    expect(fixture.receiver.received).toEqual([]);
    // One customer in twelve changes while the backfill is paused: some have their `created`
    // waiting in the backlog, the others are not read yet. The live polls detect the changes
    // before the crash.
    const changedAt = Date.now();
    const { customers, changed } = changeCustomers(fixture.sim, 12, 'changed while paused');
    await order.livePollsAfter(changedAt);

    // A crash while paused: the restarted bridge finds the undelivered backlog on disk and stays
    // paused, at the window and cursor it saved.
    await fixture.bridge.kill();
    fixture.bridge.start();
    const pausedAgain = await pausedStream();
    expect(pausedAgain.backfillPass?.watermark).toBe(paused.backfillPass?.watermark);

    // Deliveries drain: detection resumes and the backfill finishes with every event delivered.
    fixture.receiver.release();
    const done = await order.backfillDone(job.id);
    expect(done.streams.every((s) => s.lastError === null)).toBe(true);
    expect(customers.length).toBeGreaterThan(MAX_BACKLOG * 5);
    await order.everyDelivery(customers.length, changed.length);
    expect(subjectsOf('customer.created')).toEqual(new Set(customers));
    // Each customer's `created` and change arrived in the order they were detected, across the
    // lanes and the crash: a change behind its waiting `created`, or before a `created` read later.
    expect(order.outOfOrder()).toBe(0);
    const detectedAt = (subject: string, type: string) =>
      fixture.receiver.received.find((e) => e.subject === subject && e.type === type)?.time ?? '';
    const createdFirst = changed.filter(
      ({ record }) =>
        detectedAt(record.Id, 'customer.created') < detectedAt(record.Id, 'customer.updated'),
    );
    // Both cases came up (here 3 of 25 customers had their `created` waiting).
    expect(createdFirst.length).toBeGreaterThan(0);
    expect(createdFirst.length).toBeLessThan(changed.length);
    expect(fixture.receiver.rejected).toBe(0);
    expect(await fixture.bridge.stop()).toBe(0);
  }, 120_000);
});
