import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DispatchLanes, laneKey } from '../../shared/local/dispatch-lanes.ts';
import { LocalEventRouter } from '../../shared/local/event-router.ts';
import { queueDepth } from '../../shared/local/queue-backlog-gauge.ts';
import { type SqsEmulator, startSqsEmulator } from '../../shared/local/sqs-emulator.ts';
import { ASKED_LIVE_MEMBER } from '../../shared/publish/dispatch-queue.ts';
import { dispatchEventPattern } from '../../shared/publish/routing-rule.ts';
import { makeEvent } from '../publish/fixtures.ts';

describe('DispatchLanes', () => {
  const key = (subject: string) => laneKey({ source: 'connector/c1', subject, id: 'e' });

  it('sends live work live, bulk work bulk, and a subject with bulk events queued bulk until they are handled', () => {
    const lanes = new DispatchLanes(false);
    expect(lanes.laneOf(key('a'), 'live')).toBe('live');
    expect(lanes.laneOf(key('a'), 'bulk')).toBe('bulk');
    lanes.sent(lanes.sending([key('a'), key('a')]), { refused: [] });
    expect(lanes.laneOf(key('a'), 'live')).toBe('bulk');
    expect(lanes.laneOf(key('b'), 'live')).toBe('live');
    lanes.handled(key('a'));
    expect(lanes.laneOf(key('a'), 'live')).toBe('bulk');
    lanes.handled(key('a'));
    expect(lanes.laneOf(key('a'), 'live')).toBe('live');
  });

  it('keys a subject by a number that tells subjects apart and is the same for each of its events', () => {
    expect(key('customer/1')).toBe(key('customer/1'));
    expect(laneKey({ source: 'connector/c2', subject: 'customer/1', id: 'e' })).not.toBe(
      key('customer/1'),
    );
    expect(laneKey({ source: 'connector/c1', id: 'evt_1' })).toBe(
      laneKey({ source: 'connector/c1', subject: 'evt_1', id: 'other' }),
    );
    const subjects = Array.from({ length: 100_000 }, (_, i) => key(`customer/${i}`));
    expect(subjects.every(Number.isInteger)).toBe(true);
    expect(new Set(subjects).size).toBeGreaterThan(99_990);
  });

  it('forgets events refused for good: they were never queued', () => {
    const lanes = new DispatchLanes(false);
    lanes.sent(lanes.sending([key('a')]), { refused: [key('a')] });
    expect(lanes.laneOf(key('a'), 'live')).toBe('live');
  });

  it('sends everything bulk after a restart with bulk events queued, or a failed bulk send, until the bulk lane is seen empty', () => {
    const restarted = new DispatchLanes(true);
    expect(restarted.laneOf(key('a'), 'live')).toBe('bulk');
    restarted.drained(restarted.drainCheck()!);
    expect(restarted.laneOf(key('a'), 'live')).toBe('live');

    const failed = new DispatchLanes(false);
    expect(failed.drainCheck()).toBeUndefined();
    failed.sent(failed.sending([key('a')]), 'failed');
    expect(failed.laneOf(key('b'), 'live')).toBe('bulk');
    failed.drained(failed.drainCheck()!);
    expect(failed.laneOf(key('a'), 'live')).toBe('live');
  });

  it('knows a backlog left by an earlier run by its subjects: others go live at once', () => {
    const lanes = DispatchLanes.afterStart({ keys: new Map([[key('a'), 2]]), ungrouped: 0 });
    expect(lanes.sure).toBe(true);
    expect(lanes.laneOf(key('a'), 'live')).toBe('bulk');
    expect(lanes.laneOf(key('b'), 'live')).toBe('live');
    lanes.handled(key('a'));
    lanes.handled(key('a'));
    expect(lanes.laneOf(key('a'), 'live')).toBe('live');

    // Bulk events of an earlier version carry no subject: unsure until the lane drains.
    const older = DispatchLanes.afterStart({ keys: new Map(), ungrouped: 1 });
    expect(older.sure).toBe(false);
    expect(older.laneOf(key('b'), 'live')).toBe('bulk');
  });

  it('settles waiters once the bulk sends under way end, not those started after', async () => {
    const lanes = new DispatchLanes(false);
    const first = lanes.sending([key('a')]);
    let settled = false;
    const waiting = lanes.sendsSettled().then(() => {
      settled = true;
    });
    const later = lanes.sending([key('b')]);
    lanes.sent(first, { refused: [] });
    await waiting;
    expect(settled).toBe(true);
    lanes.sent(later, { refused: [] });
    lanes.moved(key('a'), 1);
    expect(lanes.pendingSubjects).toBe(1);
  });

  it('does not trust a look at an empty bulk lane taken before a bulk send started', () => {
    const lanes = new DispatchLanes(true);
    const look = lanes.drainCheck()!;
    const send = lanes.sending([key('a')]);
    expect(lanes.drainCheck()).toBeUndefined();
    lanes.sent(send, { refused: [] });
    lanes.drained(look);
    expect(lanes.laneOf(key('b'), 'live')).toBe('bulk');
    lanes.drained(lanes.drainCheck()!);
    expect(lanes.laneOf(key('b'), 'live')).toBe('live');
  });
});

describe('LocalEventRouter with two lanes', () => {
  let sqs: SqsEmulator;
  beforeAll(async () => {
    sqs = await startSqsEmulator();
  });
  afterAll(() => sqs.close());

  /** The envelopes a receive takes from the queue (up to 10). */
  async function envelopesIn(queueUrl: string): Promise<Record<string, unknown>[]> {
    const { Messages = [] } = await sqs.client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }),
    );
    return Messages.map((m) => JSON.parse(m.Body ?? '{}') as Record<string, unknown>);
  }

  async function subjectsIn(queueUrl: string): Promise<string[]> {
    return (await envelopesIn(queueUrl))
      .map((envelope) => (envelope.detail as { subject: string }).subject)
      .sort();
  }

  it('queues bulk work apart, and a live change of a subject whose bulk event waits behind it', async () => {
    const queueUrl = await sqs.createQueue('lanes-live');
    const bulkQueueUrl = await sqs.createQueue('lanes-bulk');
    const lanes = new DispatchLanes(false);
    const router = new LocalEventRouter({
      client: sqs.client,
      routes: [{ name: 'dispatch', pattern: dispatchEventPattern(), queueUrl, bulkQueueUrl }],
      lanes: {
        state: lanes,
        bulkEmpty: async () => (await queueDepth(sqs.client, bulkQueueUrl)) === 0,
      },
    });
    await router.publish([makeEvent(1), makeEvent(2)], { lane: 'bulk' });
    await router.publish([makeEvent(3, { entityId: 'c1' }), makeEvent(4)], { lane: 'live' });
    expect(await subjectsIn(bulkQueueUrl)).toEqual(['c1', 'c1', 'c2']);
    expect(await subjectsIn(queueUrl)).toEqual(['c4']);
    expect(lanes.pendingSubjects).toBe(2);
  });

  it('marks the live change it queues in the bulk lane as asked live, and nothing else', async () => {
    const queueUrl = await sqs.createQueue('asked-live');
    const bulkQueueUrl = await sqs.createQueue('asked-live-bulk');
    const router = new LocalEventRouter({
      client: sqs.client,
      routes: [{ name: 'dispatch', pattern: dispatchEventPattern(), queueUrl, bulkQueueUrl }],
      lanes: { state: new DispatchLanes(false), bulkEmpty: async () => false },
    });
    await router.publish([makeEvent(1)], { lane: 'bulk' });
    await router.publish([makeEvent(2, { entityId: 'c1' }), makeEvent(3)], { lane: 'live' });
    const marked = (envelope: Record<string, unknown>) => [
      (envelope.detail as { id: string }).id,
      envelope[ASKED_LIVE_MEMBER] ?? false,
    ];
    const bulk = (await envelopesIn(bulkQueueUrl)).map(marked);
    expect(bulk.sort()).toEqual([
      [makeEvent(1).id, false],
      [makeEvent(2, { entityId: 'c1' }).id, true],
    ]);
    expect((await envelopesIn(queueUrl)).map(marked)).toEqual([[makeEvent(3).id, false]]);
  });
});
