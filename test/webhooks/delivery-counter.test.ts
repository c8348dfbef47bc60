import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type DeliveryCounter,
  DeliveryTally,
  deliveryStreamId,
  MemoryDeliveryCounter,
} from '../../shared/webhooks/delivery-counter.ts';
import { DynamoDbDeliveryCounter } from '../../shared/webhooks/dynamodb-delivery-counter.ts';
import { eventOfBody } from '../../shared/webhooks/messages.ts';
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

describe('DeliveryTally', () => {
  it('counts per stream, ignores events of no stream, and empties when taken', () => {
    const tally = new DeliveryTally();
    tally.count('main:customer');
    tally.count('main:customer');
    tally.count(undefined);
    tally.count('main:resource');
    expect(tally.take()).toEqual(
      new Map([
        ['main:customer', 2],
        ['main:resource', 1],
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

  it('reads 0 for a stream never counted', async () => {
    const id = stream('customer');
    expect(await create().read([id])).toEqual(new Map([[id, 0]]));
  });

  it('adds each count to its own stream and skips counts of 0', async () => {
    const counter = create();
    const [a, b, c] = [stream('customer'), stream('resource'), stream('accountNote')];
    await counter.add(
      new Map([
        [a, 3],
        [b, 1],
        [c, 0],
      ]),
    );
    await counter.add(new Map([[a, 4]]));
    expect(await counter.read([a, b, c])).toEqual(
      new Map([
        [a, 7],
        [b, 1],
        [c, 0],
      ]),
    );
  });

  it('loses no increment when many adds run at once', async () => {
    const counter = create();
    const id = stream('customer');
    await Promise.all(Array.from({ length: 20 }, () => counter.add(new Map([[id, 5]]))));
    expect((await counter.read([id])).get(id)).toBe(100);
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
    const calls: Map<string, number>[] = [];
    return {
      counter,
      calls,
      add: async (counts: ReadonlyMap<string, number>) => {
        calls.push(new Map(counts));
        await counter.add(counts);
      },
      read: (ids: readonly string[]) => counter.read(ids),
    };
  }

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
    expect(spy.calls).toEqual([
      new Map([
        ['main:customer', 8],
        ['x:resource', 2],
      ]),
    ]);
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
    expect((await spy.read(['main:customer'])).get('main:customer')).toBe(0);
    await clock.advance(2000);
    await harness.drainVisible();
    expect((await spy.read(['main:customer'])).get('main:customer')).toBe(1);
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
