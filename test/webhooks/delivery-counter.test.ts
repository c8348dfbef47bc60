import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import {
  type DeliveryCounter,
  type DeliveryCountRange,
  type DeliveryTallies,
  DeliveryTally,
  deliveryOrigin,
  deliveryStreamId,
  MemoryDeliveryCounter,
} from '../../shared/webhooks/delivery-counter.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { DynamoDbDeliveryCounter } from '../../shared/webhooks/dynamodb-delivery-counter.ts';
import { MemoryWebhookStore } from '../../shared/webhooks/memory-store.ts';
import { eventOfBody } from '../../shared/webhooks/messages.ts';
import { streamTallies } from '../support/delivery-tallies.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, envelope, eventIdOf } from './support/harness.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';

describe('the stream of a delivered event', () => {
  it('is the connection of the source and the entity of the type', () => {
    expect(deliveryStreamId({ source: 'connector/main', type: 'customer.created' })).toBe(
      'main:customer',
    );
    expect(deliveryStreamId({ source: 'connector/hotel-7', type: 'accountNote.deleted' })).toBe(
      'hotel-7:accountNote',
    );
  });

  it('is undefined for operational events and events without a source', () => {
    expect(deliveryStreamId({ source: 'change-bridge', type: 'delivery.failing' })).toBeUndefined();
    expect(deliveryStreamId({ type: 'customer.created' })).toBeUndefined();
    expect(deliveryStreamId({ source: 'connector/main', type: 'ping' })).toBeUndefined();
  });

  it('is read from a stored body once parsed; a body that is not an event gives none', () => {
    const stored = eventOfBody(JSON.stringify(changeEvent(eventIdOf(1))));
    expect(stored && deliveryStreamId(stored)).toBe('main:customer');
    expect(eventOfBody('not json')).toBeUndefined();
    expect(eventOfBody('{"id":1}')).toBeUndefined();
  });
});

describe('the origin of a counted event', () => {
  it('is its stream and its detection instant', () => {
    expect(
      deliveryOrigin({
        source: 'connector/main',
        type: 'customer.created',
        time: '2026-01-01T00:00:00.250Z',
      }),
    ).toEqual({ streamId: 'main:customer', detectedAt: Date.UTC(2026, 0, 1) + 250 });
  });

  it('is undefined for operational events and events without a valid time', () => {
    const time = '2026-01-01T00:00:00.000Z';
    expect(deliveryOrigin({ source: 'change-bridge', type: 'ping', time })).toBeUndefined();
    expect(deliveryOrigin({ source: 'connector/main', type: 'customer.created' })).toBeUndefined();
    expect(
      deliveryOrigin({ source: 'connector/main', type: 'customer.created', time: 'soon' }),
    ).toBeUndefined();
  });
});

describe('DeliveryTally', () => {
  it('counts per stream and detection instant, ignores events of no stream, and empties when taken', () => {
    const tally = new DeliveryTally();
    const page = { streamId: 'main:customer', detectedAt: 1000 };
    tally.count(page, 'events');
    tally.count(page, 'created');
    tally.count(page, 'delivered');
    tally.count(page, 'created');
    tally.count(page, 'dead');
    tally.count(undefined, 'delivered');
    tally.count({ streamId: 'main:customer', detectedAt: 2000 }, 'delivered');
    tally.count({ streamId: 'main:resource', detectedAt: 1000 }, 'delivered');
    expect(tally.take()).toEqual(
      new Map([
        [
          'main:customer',
          new Map([
            [1000, { events: 1, created: 2, delivered: 1, dead: 1 }],
            [2000, { events: 0, created: 0, delivered: 1, dead: 0 }],
          ]),
        ],
        ['main:resource', new Map([[1000, { events: 0, created: 0, delivered: 1, dead: 0 }]])],
      ]),
    );
    expect(tally.take().size).toBe(0);
  });
});

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('delivery-counter-test');
});
afterAll(async () => {
  await table?.stop();
});

let tableRun = 0;
const implementations: [string, () => DeliveryCounter][] = [
  ['MemoryDeliveryCounter', () => new MemoryDeliveryCounter()],
  [
    'DynamoDbDeliveryCounter',
    // Counters only grow: each test counts streams of its own connection.
    () => new DynamoDbDeliveryCounter({ client: table.client, tableName: table.tableName }),
  ],
];

describe.each(implementations)('%s', (_name, create) => {
  const stream = (entity: string) => `run${++tableRun}:${entity}`;
  const none = { events: 0, created: 0, delivered: 0, dead: 0 };

  it('reads nothing for a stream never counted', async () => {
    const id = stream('customer');
    expect(await create().read([{ streamId: id, fromMs: 0 }])).toEqual(new Map([[id, none]]));
  });

  it('adds each count to its own stream and instant, and sums those of a range', async () => {
    const counter = create();
    const [a, b] = [stream('customer'), stream('resource')];
    await counter.add(
      new Map([
        [
          a,
          new Map([
            [1000, { events: 2, created: 4, delivered: 3, dead: 0 }],
            [2000, { events: 1, created: 2, delivered: 0, dead: 1 }],
          ]),
        ],
        [b, new Map([[1500, { delivered: 1 }]])],
      ]),
    );
    await counter.add(streamTallies(a, 2000, { delivered: 1, created: 0 }));
    await counter.add(streamTallies(a, 3000, { delivered: 5 }));
    expect(
      await counter.read([
        { streamId: a, fromMs: 1000, untilMs: 3000 },
        { streamId: b, fromMs: 1501 },
      ]),
    ).toEqual(
      new Map([
        [a, { events: 3, created: 6, delivered: 4, dead: 1 }],
        [b, none],
      ]),
    );
    expect((await counter.read([{ streamId: a, fromMs: 2000 }])).get(a)).toEqual({
      events: 1,
      created: 2,
      delivered: 6,
      dead: 1,
    });
  });

  it('loses no increment when many adds run at once', async () => {
    const counter = create();
    const id = stream('customer');
    await Promise.all(
      Array.from({ length: 20 }, () => counter.add(streamTallies(id, 7, { delivered: 5 }))),
    );
    expect((await counter.read([{ streamId: id, fromMs: 0 }])).get(id)?.delivered).toBe(100);
  });
});

describe('the dispatcher counts succeeded deliveries', () => {
  let cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  /** A memory counter that records each `add` call. */
  function spyCounter() {
    const counter = new MemoryDeliveryCounter();
    const calls: DeliveryTallies[] = [];
    return {
      counter,
      calls,
      add: async (tallies: DeliveryTallies) => {
        calls.push(tallies);
        await counter.add(tallies);
      },
      read: (ranges: readonly DeliveryCountRange[]) => counter.read(ranges),
    };
  }
  /** What `spy` counted of `main:customer`'s events. */
  const countedOf = async (spy: ReturnType<typeof spyCounter>) =>
    (await spy.read([{ streamId: 'main:customer', fromMs: 0 }])).get('main:customer');
  /** `changeEvent`'s detection instant. */
  const DETECTED = Date.parse('2026-01-01T00:00:00.000Z');

  it('adds a batch’s successes per stream in one call at the end of the batch', async () => {
    const spy = spyCounter();
    const { harness, subscribe } = await startDispatchFixture(cleanup, undefined, {
      deliveryCounter: spy,
    });
    await subscribe('/a');
    await subscribe('/b');
    for (let i = 1; i <= 4; i++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(i))));
    harness.queue.sendRaw(
      envelope({ ...changeEvent(eventIdOf(5)), type: 'resource.updated', source: 'connector/x' }),
    );
    await harness.drainVisible(10);
    const counts = (events: number) => ({
      events,
      created: 2 * events,
      delivered: 2 * events,
      dead: 0,
    });
    expect(spy.calls).toEqual([
      new Map([
        ['main:customer', new Map([[DETECTED, counts(4)]])],
        ['x:resource', new Map([[DETECTED, counts(1)]])],
      ]),
    ]);
  });

  it('counts an event published again at its new detection instant, with no second delivery', async () => {
    const spy = spyCounter();
    const { harness, subscribe, receiver } = await startDispatchFixture(cleanup, undefined, {
      deliveryCounter: spy,
    });
    await subscribe('/a');
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(13))));
    await harness.drainVisible();
    // The same change found again later (a poll whose save lost to a reset or a backfill).
    const again = '2026-01-01T00:00:05.000Z';
    harness.queue.sendRaw(envelope({ ...changeEvent(eventIdOf(13)), time: again }));
    await harness.drainVisible();
    expect(receiver.log).toHaveLength(1);
    expect(await spy.read([{ streamId: 'main:customer', fromMs: DETECTED + 1 }])).toEqual(
      new Map([['main:customer', { events: 1, created: 0, delivered: 0, dead: 0 }]]),
    );
    expect(await countedOf(spy)).toEqual({ events: 2, created: 1, delivered: 1, dead: 0 });
  });

  // The poller counts each publish of an event (a backfill's `created` and a live poll's
  // announcement of it, a window read again after a restart), and a backfill waits until the
  // dispatcher has counted as many: a copy it acknowledges uncounted leaves the job waiting.
  it('counts a copy published again while its first copy is in flight, with no second delivery', async () => {
    const spy = spyCounter();
    const { harness, subscribe, receiver } = await startDispatchFixture(
      cleanup,
      () => ({ kind: 'respond', status: 200, delayMs: 300 }),
      { clock: systemClock, deliveryCounter: spy },
    );
    await subscribe('/slow');
    const body = envelope(changeEvent(eventIdOf(14)));
    const first = processDispatchBatch([{ messageId: 'm1', body }], harness.deps);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await processDispatchBatch([{ messageId: 'm2', body }], harness.deps);
    await first;
    expect(receiver.log).toHaveLength(1);
    expect(await countedOf(spy)).toEqual({ events: 2, created: 1, delivered: 1, dead: 0 });
  });

  it('counts both copies of an event published twice into one batch, with one delivery', async () => {
    const spy = spyCounter();
    const { harness, subscribe, receiver } = await startDispatchFixture(cleanup, undefined, {
      deliveryCounter: spy,
    });
    await subscribe('/a');
    const body = envelope(changeEvent(eventIdOf(15)));
    await processDispatchBatch(
      [
        { messageId: 'm1', body },
        { messageId: 'm2', body },
      ],
      harness.deps,
    );
    expect(receiver.log).toHaveLength(1);
    expect(await countedOf(spy)).toEqual({ events: 2, created: 1, delivered: 1, dead: 0 });
  });

  it('counts a delivery when a retry succeeds, not when an attempt fails', async () => {
    let failuresLeft = 1;
    const spy = spyCounter();
    const { harness, subscribe, clock } = await startDispatchFixture(
      cleanup,
      () =>
        failuresLeft-- > 0 ? { kind: 'respond', status: 503 } : { kind: 'respond', status: 200 },
      { deliveryCounter: spy },
    );
    await subscribe('/flaky', { retrySchedule: [1000] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(9))));
    await harness.drainVisible();
    expect(await countedOf(spy)).toEqual({ events: 1, created: 1, delivered: 0, dead: 0 });
    await clock.advance(2000);
    await harness.drainVisible();
    expect(await countedOf(spy)).toEqual({ events: 1, created: 1, delivered: 1, dead: 0 });
  });

  it('counts a delivery dead-lettered when its retries are exhausted', async () => {
    const spy = spyCounter();
    const { harness, subscribe, clock } = await startDispatchFixture(
      cleanup,
      () => ({ kind: 'respond', status: 503 }),
      { deliveryCounter: spy },
    );
    await subscribe('/down', { retrySchedule: [1000] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(10))));
    await harness.drainVisible();
    await clock.advance(2000);
    await harness.drainVisible();
    expect(await countedOf(spy)).toEqual({ events: 1, created: 1, delivered: 0, dead: 1 });
  });

  it('counts a waiting delivery dead-lettered when its subscription is disabled meanwhile', async () => {
    const spy = spyCounter();
    const { harness, subscribe, clock } = await startDispatchFixture(
      cleanup,
      () => ({ kind: 'respond', status: 503 }),
      { deliveryCounter: spy },
    );
    const created = await subscribe('/paused', { retrySchedule: [1000] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(11))));
    await harness.drainVisible();
    await harness.service.updateSubscription(created.subscription.id, { enabled: false });
    await clock.advance(2000);
    await harness.drainVisible();
    expect(await countedOf(spy)).toEqual({ events: 1, created: 1, delivered: 0, dead: 1 });
  });

  it('counts a retry dead-lettered when its subscription is disabled while its event is read', async () => {
    const spy = spyCounter();
    const store = new MemoryWebhookStore();
    const { harness, subscribe, clock } = await startDispatchFixture(
      cleanup,
      () => ({ kind: 'respond', status: 503 }),
      { deliveryCounter: spy, store },
    );
    const created = await subscribe('/disabled-late', { retrySchedule: [1000] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(12))));
    await harness.drainVisible();
    // Disabled after the retry's first check of its subscription, before its request.
    const getEvent = store.getEvent.bind(store);
    store.getEvent = async (id) => {
      await harness.service.updateSubscription(created.subscription.id, { enabled: false });
      return getEvent(id);
    };
    await clock.advance(2000);
    await harness.drainVisible();
    const [delivery] = await store.listDeliveries({
      subscriptionId: created.subscription.id,
      limit: 10,
    });
    expect(delivery).toMatchObject({ status: 'dead' });
    expect(await countedOf(spy)).toEqual({ events: 1, created: 1, delivered: 0, dead: 1 });
  });

  it('fails no record when counting fails', async () => {
    const { harness, subscribe, receiver } = await startDispatchFixture(cleanup, undefined, {
      deliveryCounter: {
        add: async () => {
          throw new Error('table unavailable');
        },
        read: async () => new Map(),
      },
    });
    await subscribe('/a');
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(12))));
    await harness.drainVisible();
    expect(receiver.log).toHaveLength(1);
    expect(harness.queue.receive(10)).toEqual([]);
  });
});
