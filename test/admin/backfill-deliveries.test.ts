import { afterEach, describe, expect, it } from 'vitest';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { type Receiver, startReceiver } from '../webhooks/support/receiver.ts';
import { type AdminHarness, createAdminHarness, storedChangeEvent } from './support/harness.ts';

let harness: AdminHarness | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await harness?.close();
  await receiver?.close();
  harness = undefined;
  receiver = undefined;
});

/** A change event of `main:customer` detected at `detectedAt`, as the poller puts it on the dispatch queue. */
function queueEvent(on: AdminHarness, n: number, detectedAt: number): void {
  const event = {
    ...storedChangeEvent(`evt_${String(n).padStart(26, '0')}`, 'customer.created', `c-${n}`),
    time: new Date(detectedAt).toISOString(),
  };
  on.queue.sendRaw(
    JSON.stringify({
      version: '0',
      'detail-type': event.type,
      source: 'change-bridge',
      detail: event,
    }),
  );
}

/** Runs the dispatcher over every visible message. */
async function dispatchAll(on: AdminHarness): Promise<void> {
  for (;;) {
    const batch = on.queue.receive(10);
    if (batch.length === 0) return;
    await processDispatchBatch(batch, on.dispatcher);
  }
}

/** The admin harness with one subscriber answering `status` (200 unless told). */
async function withSubscriber(status: () => number = () => 200) {
  receiver = await startReceiver(() => ({ kind: 'respond', status: status() }));
  harness = createAdminHarness();
  await harness.deps.webhooks.createSubscription({
    url: receiver.url('/hook'),
    retrySchedule: [60_000],
  });
  return harness;
}

type JobView = {
  id: string;
  done: boolean;
  deliveryDone: boolean;
  webhooksDelivered: number;
  webhooksDeadLettered: number;
  webhooksLeft: number;
  eventsQueued: number;
};

describe("a backfill's webhooks delivered", () => {
  it('leaves out the deliveries of an earlier sync’s events still queued when it reset the stream', async () => {
    const on = await withSubscriber();
    // An emit first sync had published two events the dispatcher had not handled yet.
    queueEvent(on, 1, on.clock.now() - 2_000);
    queueEvent(on, 2, on.clock.now() - 1_000);
    const started = await on.call('POST', '/backfill', {
      body: { entities: 'customer', emit: true },
    });
    const { id } = started.body as JobView;
    // The backfill's own first sync publishes one event after it started.
    await on.clock.advance(1_000);
    queueEvent(on, 3, on.clock.now());
    await dispatchAll(on);
    expect(receiver!.log).toHaveLength(3);

    const view = (await on.call('GET', `/backfill/${id}`)).body as JobView;
    expect(view.webhooksDelivered).toBe(1);
  });
});

/** Marks the job's first sync of `main:customer` read to its end, having published `events`. */
async function firstSyncRead(on: AdminHarness, events: number): Promise<void> {
  const state = (await on.state.getStream('main:customer'))!;
  await on.state.saveStream(
    {
      ...state,
      watermark: new Date(on.clock.now()).toISOString(),
      initialSyncDone: true,
      eventsPublished: events,
      recordsRead: events,
    },
    state.version,
  );
}

describe('a backfill read to its end', () => {
  it('says how many webhooks and queued events are left, and when every one is delivered', async () => {
    let status = 503;
    const on = await withSubscriber(() => status);
    const started = await on.call('POST', '/backfill', {
      body: { entities: 'customer', emit: true },
    });
    const { id } = started.body as JobView;
    await on.clock.advance(1_000);
    // Three events published; the dispatcher has two of them, their receiver fails.
    queueEvent(on, 1, on.clock.now());
    queueEvent(on, 2, on.clock.now());
    await firstSyncRead(on, 3);
    await dispatchAll(on);

    const job = async () => (await on.call('GET', `/backfill/${id}`)).body as JobView;
    expect(await job()).toMatchObject({
      done: true,
      deliveryDone: false,
      webhooksDelivered: 0,
      webhooksLeft: 2,
      eventsQueued: 1,
      // The queued event is still to be delivered too, to the one subscription taking them.
      webhooksToDeliver: 3,
    });

    status = 200;
    queueEvent(on, 3, on.clock.now());
    // Past the retries' time (the schedule's minute, with its jitter).
    await on.clock.advance(5 * 60_000);
    await dispatchAll(on);
    expect(await job()).toMatchObject({
      done: true,
      deliveryDone: true,
      webhooksDelivered: 3,
      webhooksDeadLettered: 0,
      webhooksLeft: 0,
      eventsQueued: 0,
      webhooksToDeliver: 0,
    });
  });

  it('counts dead-lettered webhooks as no longer left', async () => {
    // 410: the subscriber wants no more; the subscription is disabled, the rest dead-lettered.
    const on = await withSubscriber(() => 410);
    const started = await on.call('POST', '/backfill', {
      body: { entities: 'customer', emit: true },
    });
    const { id } = started.body as JobView;
    await on.clock.advance(1_000);
    queueEvent(on, 1, on.clock.now());
    queueEvent(on, 2, on.clock.now());
    await firstSyncRead(on, 2);
    await dispatchAll(on);

    expect((await on.call('GET', `/backfill/${id}`)).body).toMatchObject({
      deliveryDone: true,
      webhooksDelivered: 0,
      webhooksDeadLettered: 2,
      webhooksLeft: 0,
    });
  });
});
