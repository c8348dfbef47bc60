import { afterEach, describe, expect, it, vi } from 'vitest';
import { requeuePendingDeliveries } from '../../shared/local/dispatch-recovery.ts';
import { ASKED_LIVE_MEMBER } from '../../shared/publish/dispatch-queue.ts';
import type { DispatchLane } from '../../shared/publish/publisher.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { type DeliveryMessage, DeliveryMessageSchema } from '../../shared/webhooks/messages.ts';
import { MemoryWaitingLedger } from '../../shared/webhooks/waiting-ledger.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { anotherProcess, changeEvent, envelope, eventIdOf } from './support/harness.ts';
import type { ReceiverAction } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** Events of a customer each. */
const events = (count: number) =>
  Array.from({ length: count }, (_, n) => ({
    messageId: `m-${n}`,
    body: envelope(changeEvent(eventIdOf(n))),
  }));

/** An endpoint that answers `first` once, then `rest`, one request at a time. */
async function endpointAnswering(
  first: ReceiverAction,
  rest: ReceiverAction,
  options: Parameters<typeof startDispatchFixture>[2] = {},
) {
  let answered = 0;
  const fixture = await startDispatchFixture(
    cleanup,
    () => (answered++ === 0 ? first : rest),
    options,
  );
  await fixture.subscribe('/hook', { maxConcurrency: 1 });
  /** The messages visible on the queue now, taken from it. */
  const visible = (): { messageId: string; message: DeliveryMessage }[] =>
    fixture.harness.queue.receive(100).map(({ messageId, body }) => ({
      messageId,
      message: DeliveryMessageSchema.parse(JSON.parse(body)),
    }));
  /** Every message the batches left on the queue, made visible by the clock. */
  const takeMessages = async () => {
    await fixture.clock.advance(3_600_000);
    return visible();
  };
  return { ...fixture, visible, takeMessages };
}

/** A change event of `subject`, as the record of message `m-<n>`. */
const ofSubject = (n: number, subject: string) => ({
  messageId: `m-${n}`,
  body: envelope(changeEvent(eventIdOf(n), { subject })),
});

const TOO_MANY = {
  kind: 'respond',
  status: 429,
  headers: { 'retry-after': '2' },
} as const satisfies ReceiverAction;
const FAILED = { kind: 'respond', status: 500 } as const satisfies ReceiverAction;

// README: live changes go first, also while a backfill's webhooks fill the endpoint's line.
describe("a bulk batch's deliveries that wait for a retry or a pause", () => {
  it('come back on the dispatch queue as bulk work, not as waiting in the line, and a live batch’s as live work', async () => {
    for (const lane of ['bulk', 'live'] as const) {
      const { harness, takeMessages } = await endpointAnswering(TOO_MANY, TOO_MANY);
      await processDispatchBatch(events(3), harness.deps, { lane });
      // The first met the 429; the pause deferred the other two before they sent anything.
      const messages = await takeMessages();
      expect(messages).toHaveLength(3);
      const expected = lane === 'bulk' ? 'bulk' : undefined;
      expect(messages.map(({ message }) => message.lane)).toEqual([expected, expected, expected]);
      expect(harness.queue.waitingInLine).toBe(0);
    }
  });

  it('keep their place behind live work when a live lane batch takes them, retry after retry', async () => {
    const { harness, receiver, takeMessages } = await endpointAnswering(FAILED, FAILED);
    await processDispatchBatch(events(2), harness.deps, { lane: 'bulk' });
    expect(receiver.log).toHaveLength(2);
    const run = vi.spyOn(harness.deps.scheduler, 'run');
    // Their retries come back on the dispatch queue, which the live lane takes, and fail again.
    const retries = await takeMessages();
    await processDispatchBatch(
      retries.map(({ messageId, message }) => ({ messageId, body: JSON.stringify(message) })),
      harness.deps,
      { lane: 'live' },
    );
    expect(receiver.log).toHaveLength(4);
    // Started at their endpoint as bulk work (the scheduler's `priority`), and so are their next.
    expect(run.mock.calls.map((call) => call[4])).toEqual<DispatchLane[]>(['bulk', 'bulk']);
    expect((await takeMessages()).map(({ message }) => message.lane)).toEqual(['bulk', 'bulk']);
  });

  it('keep their lane in every message that brings them back: a recovery after a restart, and the retry of a message that named none', async () => {
    const { harness, takeMessages } = await endpointAnswering(FAILED, FAILED);
    await processDispatchBatch(events(2), harness.deps, { lane: 'bulk' });
    // Their records say so (their retry messages too, as above).
    const retries = await takeMessages();
    const records = await Promise.all(
      retries.map(({ message }) => harness.deps.store.getDelivery(message.deliveryId)),
    );
    expect(records.map((record) => record?.lane)).toEqual(['bulk', 'bulk']);
    // A new process that finds them pending without their messages re-enqueues them as bulk work.
    expect(await requeuePendingDeliveries(anotherProcess(harness.deps))).toBe(2);
    const requeued = await takeMessages();
    expect(requeued.map(({ message }) => message.lane)).toEqual(['bulk', 'bulk']);
    // A message naming no lane (written before records kept theirs) still makes a bulk retry.
    const run = vi.spyOn(harness.deps.scheduler, 'run');
    await processDispatchBatch(
      requeued.map(({ messageId, message }) => ({
        messageId,
        body: JSON.stringify({ ...message, lane: undefined }),
      })),
      harness.deps,
      { lane: 'live' },
    );
    expect(run.mock.calls.map((call) => call[4])).toEqual<DispatchLane[]>(['live', 'live']);
    expect((await takeMessages()).map(({ message }) => message.lane)).toEqual(['bulk', 'bulk']);
  });

  it('are sent ahead of the bulk lane as live work once a live change of their subject waits behind them, held only by what still holds them', async () => {
    const { harness, receiver, clock, visible } = await endpointAnswering(TOO_MANY, {
      kind: 'respond',
      status: 200,
    });
    // A backfill's two: x meets a 429 (2 s), c-1 is deferred by the pause without an attempt.
    await processDispatchBatch([ofSubject(0, 'x'), ofSubject(1, 'c-1')], harness.deps, {
      lane: 'bulk',
    });
    expect(visible()).toEqual([]);
    // A live change of c-1 waits behind it: c-1's backfill delivery is sent ahead, due now.
    await processDispatchBatch([ofSubject(2, 'c-1')], harness.deps, { lane: 'live' });
    const ahead = visible();
    expect(ahead.map(({ message }) => [message.lane, message.ahead])).toEqual([['live', true]]);
    const deliveryId = ahead[0]!.message.deliveryId;
    expect((await harness.deps.store.getDelivery(deliveryId))?.eventId).toBe(eventIdOf(1));
    // The pause still holds it: deferred to its end, as live work from now on.
    const run = vi.spyOn(harness.deps.scheduler, 'run');
    await processDispatchBatch(
      ahead.map(({ messageId, message }) => ({ messageId, body: JSON.stringify(message) })),
      harness.deps,
      { lane: 'live' },
    );
    expect(run.mock.calls.map((call) => call[4])).toEqual<DispatchLane[]>(['live']);
    expect((await harness.deps.store.getDelivery(deliveryId))?.lane).toBeUndefined();
    expect(receiver.log).toHaveLength(1);
    // After the pause: c-1's backfill delivery, then its live change.
    for (let second = 0; second < 5; second++) {
      await clock.advance(1_000);
      await harness.drainVisible();
    }
    const c1 = receiver.log
      .map((request) => request.headers['webhook-id'])
      .filter((id) => id !== eventIdOf(0));
    expect(c1).toEqual([eventIdOf(1), eventIdOf(2)]);
  });

  it('are sent ahead by whichever process a live change of their subject reaches, once, through the waiting ledger (AWS)', async () => {
    const { harness, receiver, clock, visible } = await endpointAnswering(
      TOO_MANY,
      { kind: 'respond', status: 200 },
      { waitingLedger: new MemoryWaitingLedger() },
    );
    // One container's bulk batch: x meets a 429 (2 s), c-1's `created` is deferred by the pause.
    await processDispatchBatch([ofSubject(0, 'x'), ofSubject(1, 'c-1')], harness.deps, {
      lane: 'bulk',
    });
    expect(visible()).toEqual([]);
    // Another container's live batch, which never saw it: c-1's live change waits behind it,
    // and it is sent ahead, due now, as live work.
    await clock.advance(10);
    const other = anotherProcess(harness.deps);
    await processDispatchBatch([ofSubject(2, 'c-1')], other, { lane: 'live' });
    const ahead = visible();
    expect(ahead.map(({ message }) => [message.lane, message.ahead])).toEqual([['live', true]]);
    expect((await harness.deps.store.getDelivery(ahead[0]!.message.deliveryId))?.eventId).toBe(
      eventIdOf(1),
    );
    // A third container's live change of c-1 finds it taken: nothing is sent twice.
    await clock.advance(10);
    await processDispatchBatch([ofSubject(3, 'c-1')], anotherProcess(harness.deps), {
      lane: 'live',
    });
    expect(visible()).toEqual([]);
    for (const { message } of ahead) harness.queue.sendRaw(JSON.stringify(message), 0);
    // After the pause, in c-1's order: its `created`, then its live changes.
    for (let second = 0; second < 8; second++) {
      await clock.advance(1_000);
      await harness.drainVisible(10, other);
    }
    const c1 = receiver.log
      .map((request) => request.headers['webhook-id'])
      .filter((id) => id !== eventIdOf(0));
    expect(c1).toEqual([eventIdOf(1), eventIdOf(2), eventIdOf(3)]);
  });

  it('leave out a live change the bulk lane carried for its subject’s order: it is live work', async () => {
    const { harness, takeMessages } = await endpointAnswering(FAILED, FAILED);
    const run = vi.spyOn(harness.deps.scheduler, 'run');
    const carried = envelope(changeEvent(eventIdOf(1), { subject: 'c-1' }));
    const marked = `{${JSON.stringify(ASKED_LIVE_MEMBER)}:true,${carried.slice(1)}`;
    await processDispatchBatch(
      [
        { messageId: 'm-0', body: envelope(changeEvent(eventIdOf(0), { subject: 'c-0' })) },
        { messageId: 'm-1', body: marked },
      ],
      harness.deps,
      { lane: 'bulk' },
    );
    expect(run.mock.calls.map((call) => call[4])).toEqual<DispatchLane[]>(['bulk', 'live']);
    const retries = await takeMessages();
    const lanes = await Promise.all(
      retries.map(async ({ message }) => [
        (await harness.deps.store.getDelivery(message.deliveryId))?.eventId,
        message.lane,
      ]),
    );
    expect(lanes.sort()).toEqual([
      [eventIdOf(0), 'bulk'],
      [eventIdOf(1), undefined],
    ]);
  });

  it('start as live work once a live change of their subject waits behind them', async () => {
    const { harness, takeMessages } = await endpointAnswering(FAILED, {
      kind: 'respond',
      status: 200,
    });
    // A backfill's `created` of c-1 fails once; a live change of c-1 then waits behind its retry.
    await processDispatchBatch([ofSubject(0, 'c-1')], harness.deps, { lane: 'bulk' });
    await processDispatchBatch([ofSubject(1, 'c-1')], harness.deps, { lane: 'live' });
    // Its copy sent ahead (above), the live change's deferral, the `created`'s own retry.
    const messages = await takeMessages();
    expect(messages.map(({ message }) => [message.lane, message.ahead])).toEqual([
      ['live', true],
      [undefined, undefined],
      ['bulk', undefined],
    ]);
    const run = vi.spyOn(harness.deps.scheduler, 'run');
    const retry = messages.find(({ message }) => message.lane === 'bulk');
    await processDispatchBatch(
      [{ messageId: retry!.messageId, body: JSON.stringify(retry!.message) }],
      harness.deps,
      { lane: 'live' },
    );
    expect(run.mock.calls.map((call) => call[4])).toEqual<DispatchLane[]>(['live']);
  });
});
