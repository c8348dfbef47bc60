import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { type DiskQueue, startDiskQueue } from '../../shared/local/disk-queue/disk-queue.ts';
import { DispatchLanes, laneKey } from '../../shared/local/dispatch-lanes.ts';
import { LocalEventRouter } from '../../shared/local/event-router.ts';
import {
  EXPEDITE_RETRY_MS,
  EXPEDITE_WOKEN_RETRY_MS,
  SubjectExpediter,
} from '../../shared/local/subject-expediter.ts';
import { dispatchEventPattern } from '../../shared/publish/routing-rule.ts';
import { makeEvent } from '../publish/fixtures.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** The local run's two lanes on a disk queue, its router, and the expediter between them. */
async function twoLanes(options: { bulkQueued?: boolean } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'subject-expediter-'));
  const clock = new ManualClock(Date.UTC(2026, 11, 5, 12));
  const queue: DiskQueue = await startDiskQueue({ path: join(dir, 'queue'), clock, listen: false });
  const queueUrl = await queue.createQueue('dispatch');
  const bulkQueueUrl = await queue.createQueue('dispatch-bulk');
  const lanes = new DispatchLanes(options.bulkQueued ?? false);
  const errors: unknown[] = [];
  const expediter = new SubjectExpediter({
    lanes,
    move: (group) => queue.moveMessageGroup(bulkQueueUrl, queueUrl, group),
    onError: (error) => errors.push(error),
    clock,
  });
  cleanup.push(
    () => rm(dir, { recursive: true, force: true }),
    () => queue.close(),
    async () => {
      expediter.stop();
      await expediter.idle();
    },
  );
  const router = new LocalEventRouter({
    client: queue.client,
    routes: [{ name: 'dispatch', pattern: dispatchEventPattern(), queueUrl, bulkQueueUrl }],
    lanes: { state: lanes, bulkEmpty: async () => false, expedite: (k) => expediter.expedite(k) },
    clock,
  });
  /** Receives what `url` holds, up to `max`: each message's event id and receipt handle. */
  const receive = async (url: string, max = 10) => {
    const { Messages = [] } = await queue.client.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: max }),
    );
    return Messages.map((m) => ({
      id: (JSON.parse(m.Body ?? '{}') as { detail: { id: string } }).detail.id,
      receiptHandle: m.ReceiptHandle!,
    }));
  };
  const ids = async (url: string) => (await receive(url)).map((m) => m.id);
  return { clock, queue, queueUrl, bulkQueueUrl, lanes, expediter, router, receive, ids, errors };
}

const backfilled = (index: number, subject: string) =>
  makeEvent(index, { entityId: subject, change: 'created' });
const changed = (index: number, subject: string) => makeEvent(index, { entityId: subject });
const idOf = (index: number) => makeEvent(index).id;

describe('SubjectExpediter, with the router and the disk queue', () => {
  it("moves a subject's bulk events, then its live change, to the live lane in order, and leaves the other subjects' backlog", async () => {
    const lanes = await twoLanes();
    await lanes.router.publish([backfilled(1, 'c1'), backfilled(2, 'c2'), backfilled(3, 'c1')], {
      lane: 'bulk',
    });
    await lanes.router.publish([changed(4, 'c1'), changed(5, 'c3')], { lane: 'live' });
    await lanes.expediter.idle();

    // c3 had nothing waiting: straight to the live lane, before c1 was moved behind it.
    expect(await lanes.ids(lanes.queueUrl)).toEqual([idOf(5), idOf(1), idOf(3), idOf(4)]);
    expect(await lanes.ids(lanes.bulkQueueUrl)).toEqual([idOf(2)]);
    expect(lanes.lanes.pendingSubjects).toBe(1);
    expect(lanes.lanes.laneOf(laneKey(changed(6, 'c1')), 'live')).toBe('live');
    expect(lanes.errors).toEqual([]);
  });

  it("moves nothing while a bulk batch holds one of the subject's events, and the rest once that one is done", async () => {
    const lanes = await twoLanes();
    await lanes.router.publish([backfilled(1, 'c1'), backfilled(2, 'c1')], { lane: 'bulk' });
    const [inFlight] = await lanes.receive(lanes.bulkQueueUrl, 1);
    expect(inFlight?.id).toBe(idOf(1));

    await lanes.router.publish([changed(3, 'c1')], { lane: 'live' });
    await Promise.resolve();
    expect(await lanes.ids(lanes.queueUrl)).toEqual([]);

    // The bulk batch hands its event on and deletes its message.
    lanes.lanes.handled(laneKey(backfilled(1, 'c1')));
    await lanes.queue.client.send(
      new DeleteMessageCommand({
        QueueUrl: lanes.bulkQueueUrl,
        ReceiptHandle: inFlight!.receiptHandle,
      }),
    );
    // Looked at again after EXPEDITE_RETRY_MS (then longer), until nothing of it is in flight.
    for (let look = 0; look < 10 && lanes.lanes.pendingSubjects > 0; look++) {
      await lanes.clock.advance(EXPEDITE_RETRY_MS);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await lanes.expediter.idle();
    expect(await lanes.ids(lanes.queueUrl)).toEqual([idOf(2), idOf(3)]);
    expect(lanes.lanes.pendingSubjects).toBe(0);
  });

  it('waits for a bulk send under way, which may hold an earlier event of the subject', async () => {
    const lanes = await twoLanes();
    await lanes.router.publish([backfilled(1, 'c1')], { lane: 'bulk' });
    const key = laneKey(backfilled(1, 'c1'));
    const underWay = lanes.lanes.sending([key]);
    await lanes.router.publish([changed(3, 'c1')], { lane: 'live' });
    await Promise.resolve();
    expect(await lanes.ids(lanes.queueUrl)).toEqual([]);

    lanes.lanes.sent(underWay, { refused: [key] });
    await lanes.expediter.idle();
    expect(await lanes.ids(lanes.queueUrl)).toEqual([idOf(1), idOf(3)]);
  });

  it('moves nothing while the lanes are unsure what waits in the bulk lane (a restart with a backlog)', async () => {
    const lanes = await twoLanes({ bulkQueued: true });
    await lanes.router.publish([backfilled(1, 'c1')], { lane: 'bulk' });
    await lanes.router.publish([changed(2, 'c1')], { lane: 'live' });
    await lanes.expediter.idle();
    expect(await lanes.ids(lanes.queueUrl)).toEqual([]);
    expect(await lanes.ids(lanes.bulkQueueUrl)).toEqual([idOf(1), idOf(2)]);
  });
});

describe('SubjectExpediter, while a bulk batch holds the subject', () => {
  it('looks again after 0.1 s, then at doubling waits up to 2 s, and stops looking once it moves', async () => {
    const clock = new ManualClock(0);
    const lanes = new DispatchLanes(false);
    const looks: number[] = [];
    const heldFor = 8;
    const expediter = new SubjectExpediter({
      lanes,
      move: async () => {
        looks.push(clock.now());
        return looks.length < heldFor ? { moved: 0, held: 1 } : { moved: 1, held: 0 };
      },
      onError: (error) => {
        throw error;
      },
      clock,
    });
    expediter.expedite(laneKey(changed(1, 'c1')));
    for (let ms = 0; ms < 10_000; ms += 50) {
      await new Promise((resolve) => setImmediate(resolve));
      await clock.advance(50);
    }
    await expediter.idle();
    expect(looks).toEqual([0, 100, 300, 700, 1_500, 3_100, 5_100, 7_100]);
  });

  /**
   * An expediter on a manual clock whose moves find the subject held while `held.now`, each
   * look's time noted; the subject c1 expedited, and the clock run for `runMs` in 50 ms steps.
   */
  async function heldSubject(runMs: number) {
    const clock = new ManualClock(0);
    const looks: number[] = [];
    const held = { now: true };
    const expediter = new SubjectExpediter({
      lanes: new DispatchLanes(false),
      move: async () => {
        looks.push(clock.now());
        return held.now ? { moved: 0, held: 1 } : { moved: 2, held: 0 };
      },
      onError: (error) => {
        throw error;
      },
      clock,
    });
    const key = laneKey(changed(1, 'c1'));
    expediter.expedite(key);
    for (let ms = 0; ms < runMs; ms += 50) {
      await new Promise((resolve) => setImmediate(resolve));
      await clock.advance(50);
    }
    return { clock, looks, held, expediter, key };
  }

  it('looks again at once when the bulk event that held it is handled, not at the end of its wait', async () => {
    const { clock, looks, held, expediter, key } = await heldSubject(1_000);
    // Held: it waits 0.1, 0.2, 0.4, 0.8 s between looks.
    expect(looks).toEqual([0, 100, 300, 700]);
    // The bulk batch holding the subject's event ends 50 ms into the 0.8 s wait.
    await clock.advance(50);
    held.now = false;
    // Another subject's handled event wakes nothing of this one.
    expediter.wake(laneKey(changed(3, 'c3')));
    await new Promise((resolve) => setImmediate(resolve));
    expect(looks).toHaveLength(4);
    expediter.wake(key);
    await expediter.idle();
    expect(looks).toEqual([0, 100, 300, 700, 1_050]);
  });

  it('looks again 20 ms after a wake that comes before the handled event has left the queue', async () => {
    // The dispatcher tells of a handled event as its batch ends, before the batch's messages are
    // deleted: the look the wake starts still finds it in flight. Before, it then waited its
    // doubled wait (up to 2 s) while the subject's live change waited behind it.
    const { clock, looks, held, expediter, key } = await heldSubject(2_000);
    // Held: it waits 0.1, 0.2, 0.4, 0.8, then 1.6 s between looks.
    expect(looks).toEqual([0, 100, 300, 700, 1_500]);
    expediter.wake(key);
    await new Promise((resolve) => setImmediate(resolve));
    expect(looks).toEqual([0, 100, 300, 700, 1_500, 2_000]);
    // Its message is deleted a moment later; the next look comes 20 ms after the last.
    held.now = false;
    await clock.advance(EXPEDITE_WOKEN_RETRY_MS);
    await new Promise((resolve) => setImmediate(resolve));
    try {
      expect(looks).toEqual([0, 100, 300, 700, 1_500, 2_000, 2_000 + EXPEDITE_WOKEN_RETRY_MS]);
    } finally {
      expediter.stop();
      await expediter.idle();
    }
  });
});
