import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { SUBSCRIPTION_FRESH_MS } from '../../shared/webhooks/batch-subscriptions.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import type { QueuedDelivery } from '../../shared/webhooks/queue.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, createHarness, envelope, eventIdOf } from './support/harness.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';
import type { ReceiverAction } from './support/receiver.ts';

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('webhooks-inline');
});
afterAll(async () => {
  await table.stop();
});

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function setup(
  decide?: (request: { path: string }) => ReceiverAction,
  options: Parameters<typeof createHarness>[0] = {},
) {
  const fixture = await startDispatchFixture(cleanup, decide, options);
  const subscribe = async (path: string, fields: Record<string, unknown> = {}) =>
    (await fixture.subscribe(path, fields)).subscription;
  const records = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      messageId: `m-${from + i}`,
      body: envelope(changeEvent(eventIdOf(from + i))),
    }));
  return { ...fixture, subscribe, records };
}

/** A ~3.4 KB customer event like the simulator's: the record twice, a field changed. */
function largeCustomerEvent(n: number): Record<string, unknown> {
  const record = (notes: string | null) => ({
    Id: `7e952894-916c-479c-9256-${String(n).padStart(12, '0')}`,
    ChainId: 'ec736bfc-5542-4ea8-b8bf-3a4114f38878',
    Number: String(n),
    Title: 'Misses',
    Sex: 'Female',
    FirstName: 'Ewa',
    LastName: 'Rossi',
    SecondLastName: null,
    NationalityCode: 'JP',
    PreferredLanguageCode: 'cs-CZ',
    LanguageCode: 'cs-CZ',
    BirthDate: null,
    BirthPlace: null,
    Occupation: null,
    Email: `ewa.rossi.${n}@example.com`,
    HasOtaEmail: false,
    Phone: null,
    TaxIdentificationNumber: 'CZ95848976',
    LoyaltyCode: null,
    AccountingCode: null,
    BillingCode: null,
    Notes: notes,
    CarRegistrationNumber: null,
    DietaryRequirements: null,
    CreatedUtc: '2025-05-04T00:14:27.153Z',
    UpdatedUtc: notes ? '2026-03-10T09:00:00.000Z' : '2025-05-04T00:14:27.153Z',
    Passport: null,
    IdentityCard: null,
    Visa: null,
    DriversLicense: null,
    Address: {
      Id: '94d8fd40-b201-4fa5-8680-33b9917c43a6',
      Line1: 'Ulica Floriańska 31',
      Line2: null,
      City: '東京',
      PostalCode: '100-0001',
      CountryCode: 'JP',
      CountrySubdivisionCode: 'JP-13',
      Latitude: 35.68,
      Longitude: 139.76,
    },
    AddressId: '94d8fd40-b201-4fa5-8680-33b9917c43a6',
    Classifications: [],
    Options: ['Invoiceable', 'GuestPhotoConsent'],
    ItalianDestinationCode: null,
    ItalianFiscalCode: null,
    CompanyId: null,
    MergeTargetId: null,
    ActivityState: 'Active',
    IsActive: true,
    PreferredSpaceFeatures: ['TwinBeds', 'AirConditioning'],
    CreatorProfileId: '9e056c9c-4487-421b-a51f-b28b4eacdce7',
    UpdaterProfileId: '9e056c9c-4487-421b-a51f-b28b4eacdce7',
  });
  const event = changeEvent(eventIdOf(n));
  const data = event.data as Record<string, unknown>;
  data.current = record(`call back ${n}`);
  data.previous = record(null);
  data.changedFields = ['Notes'];
  return event;
}

describe('inline fan-out', () => {
  it('makes the first attempt at fan-out: nothing is queued and the attempt is folded into the delivery', async () => {
    const { receiver, harness, subscribe, records } = await setup();
    const sub = await subscribe('/a');
    const result = await processDispatchBatch(records(1, 3), harness.deps);
    expect(result.batchItemFailures).toEqual([]);
    expect(receiver.log.map((r) => r.headers['webhook-id']).sort()).toEqual([
      eventIdOf(1),
      eventIdOf(2),
      eventIdOf(3),
    ]);
    expect(receiver.log.every((r) => r.verifiedWith === 1)).toBe(true);
    expect(harness.queue.size).toBe(0);
    const [entry] = await harness.service.listDeliveries({ eventId: eventIdOf(2) });
    expect(entry?.delivery).toMatchObject({
      subscriptionId: sub.id,
      status: 'delivered',
      attempts: 1,
    });
    expect(entry?.attempts.map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, 200, 'delivered'],
    ]);
    expect((await harness.service.listEvents()).map((e) => e.id).sort()).toEqual([
      eventIdOf(1),
      eventIdOf(2),
      eventIdOf(3),
    ]);
  });

  it('sends nothing twice and creates no second delivery when SQS redelivers an event later', async () => {
    const { receiver, harness, subscribe, records } = await setup();
    await subscribe('/a');
    await processDispatchBatch(records(1, 2), harness.deps);
    const again = await processDispatchBatch(records(1, 2), harness.deps);
    expect(again.batchItemFailures).toEqual([]);
    expect(receiver.log).toHaveLength(2);
    expect(await harness.store.listDeliveries({ eventId: eventIdOf(1), limit: 10 })).toHaveLength(
      1,
    );
    expect(harness.queue.size).toBe(0);
  });

  it('redoes only the delivery that failed when the event comes back', async () => {
    const { receiver, harness, subscribe, records } = await setup();
    await subscribe('/a');
    const b = await subscribe('/b');
    const getEndpointState = harness.store.getEndpointState.bind(harness.store);
    let failOnce = true;
    harness.deps.store.getEndpointState = async (subscriptionId) => {
      if (subscriptionId === b.id && failOnce) {
        failOnce = false;
        throw new Error('throttled');
      }
      return getEndpointState(subscriptionId);
    };
    const first = await processDispatchBatch(records(7, 1), harness.deps);
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'm-7' }]);
    const second = await processDispatchBatch(records(7, 1), harness.deps);
    expect(second.batchItemFailures).toEqual([]);
    // /a was delivered and recorded with the event the first time; only /b is sent again.
    expect(receiver.log.map((r) => r.path).sort()).toEqual(['/a', '/b']);
    const deliveries = await harness.store.listDeliveries({ eventId: eventIdOf(7), limit: 10 });
    expect(deliveries.map((d) => d.status)).toEqual(['delivered', 'delivered']);
  });

  it('fails the records of a batch whose fan-out write failed, and sends their events again', async () => {
    const { receiver, harness, subscribe, records } = await setup();
    await subscribe('/a');
    const putFanOuts = harness.store.putFanOuts.bind(harness.store);
    harness.deps.store.putFanOuts = async () => {
      throw new Error('throttled');
    };
    const first = await processDispatchBatch(records(8, 2), harness.deps);
    expect(first.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['m-8', 'm-9']);
    expect(harness.metrics.counts.delivered).toBe(2);
    harness.deps.store.putFanOuts = putFanOuts;
    const second = await processDispatchBatch(records(8, 2), harness.deps);
    expect(second.batchItemFailures).toEqual([]);
    // At least once: nothing was recorded, so both go out again (receivers dedupe on webhook-id).
    expect(receiver.log).toHaveLength(4);
    expect(await harness.store.listDeliveries({ eventId: eventIdOf(8), limit: 10 })).toHaveLength(
      1,
    );
  });

  it('sends the retries of a batch in one queue request', async () => {
    const { harness, subscribe, records } = await setup(() => ({ kind: 'respond', status: 500 }));
    await subscribe('/down');
    const sent: QueuedDelivery[][] = [];
    const sendBatch = harness.queue.sendBatch.bind(harness.queue);
    harness.deps.queue.sendBatch = async (entries) => {
      sent.push([...entries]);
      return sendBatch(entries);
    };
    harness.deps.queue.send = async () => {
      throw new Error('one message at a time');
    };
    const result = await processDispatchBatch(records(20, 5), harness.deps);
    expect(result.batchItemFailures).toEqual([]);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.map((e) => e.message.kind)).toEqual(Array(5).fill('delivery'));
    expect(sent[0]?.every((e) => e.delaySeconds >= 4 && e.delaySeconds <= 6)).toBe(true);
    expect(harness.metrics.counts.retried).toBe(5);
  });

  it('fails a record whose retry message could not be sent, and its redelivery enqueues it again', async () => {
    const { receiver, harness, subscribe, records } = await setup(() => ({
      kind: 'respond',
      status: 503,
    }));
    await subscribe('/down');
    const sendBatch = harness.queue.sendBatch.bind(harness.queue);
    harness.deps.queue.sendBatch = async (entries) => entries.map((_, index) => index);
    const failed = await processDispatchBatch(records(30, 1), harness.deps);
    expect(failed.batchItemFailures).toEqual([{ itemIdentifier: 'm-30' }]);
    expect(harness.queue.size).toBe(0);
    harness.deps.queue.sendBatch = sendBatch;
    const redone = await processDispatchBatch(records(30, 1), harness.deps);
    expect(redone.batchItemFailures).toEqual([]);
    // The pending delivery is re-enqueued, not attempted again.
    expect(receiver.log).toHaveLength(1);
    expect(harness.queue.size).toBe(1);
  });

  it('dead-letters the rest of a batch without a request once a 410 disables the subscription', async () => {
    const { receiver, harness, subscribe, records } = await setup(() => ({
      kind: 'respond',
      status: 410,
    }));
    // One at a time, so the rest of the batch comes after the 410.
    const sub = await subscribe('/gone', { maxConcurrency: 1 });
    const result = await processDispatchBatch(records(40, 3), harness.deps);
    expect(result.batchItemFailures).toEqual([]);
    expect(receiver.log).toHaveLength(1);
    const deliveries = await harness.store.listDeliveries({ subscriptionId: sub.id, limit: 10 });
    expect(deliveries.map((d) => d.status)).toEqual(['dead', 'dead', 'dead']);
    expect(deliveries.map((d) => d.deadReason).sort()).toEqual([
      'endpoint answered 410 Gone',
      'subscription disabled',
      'subscription disabled',
    ]);
    expect(await harness.store.listDeadLetters(sub.id, 0)).toHaveLength(3);
  });

  it('sends nothing more in a running batch once the admin API disables the subscription, as after a 410', async () => {
    let disabling: Promise<unknown> | undefined;
    let subscriptionId = '';
    const { receiver, harness, subscribe, records } = await setup(() => {
      // `change-bridge subscriptions disable` while the batch's first request is answered.
      disabling ??= harness.service.updateSubscription(subscriptionId, { enabled: false });
      return { kind: 'respond', status: 200, delayMs: 50 };
    });
    subscriptionId = (await subscribe('/disabled', { maxConcurrency: 1 })).id;
    const result = await processDispatchBatch(records(50, 3), harness.deps);
    await disabling;
    expect(result.batchItemFailures).toEqual([]);
    expect(receiver.log).toHaveLength(1);
    const deliveries = await harness.store.listDeliveries({ subscriptionId, limit: 10 });
    expect(deliveries.map((d) => d.deadReason ?? d.status).sort()).toEqual([
      'delivered',
      'subscription disabled',
      'subscription disabled',
    ]);
  });

  it('reads a subscription whose copy went stale once for the deliveries that find it so at once', async () => {
    const { receiver, harness, clock, subscribe, records } = await setup();
    const { id } = await subscribe('/stale-copy');
    const store = harness.store;
    const listSubscriptions = store.listSubscriptions.bind(store);
    const getSubscription = store.getSubscription.bind(store);
    const reads: string[] = [];
    // The batch's list is read, then the clock moves on: every delivery finds its copy stale.
    store.listSubscriptions = async () => {
      const all = await listSubscriptions();
      await clock.advance(SUBSCRIPTION_FRESH_MS);
      return all;
    };
    store.getSubscription = async (subscriptionId) => {
      reads.push(subscriptionId);
      return getSubscription(subscriptionId);
    };
    await processDispatchBatch(records(70, 8), harness.deps);
    expect(receiver.log).toHaveLength(8);
    expect(reads).toEqual([id]);
  });

  it('sends nothing more in a running batch once another process disabled the subscription a few seconds before', async () => {
    let disabling: Promise<unknown> | undefined;
    let subscriptionId = '';
    const { receiver, harness, clock, subscribe } = await setup(() => {
      // The admin API runs apart (its own Lambda in AWS): this process is told nothing.
      disabling ??= admin.service.updateSubscription(subscriptionId, { enabled: false });
      void clock.advance(SUBSCRIPTION_FRESH_MS);
      return { kind: 'respond', status: 200, delayMs: 50 };
    });
    const admin = createHarness({ clock, store: harness.store });
    cleanup.push(() => admin.sender.close());
    subscriptionId = (await subscribe('/disabled-elsewhere', { maxConcurrency: 1 })).id;
    // Of one subject: they go one after another, and none is deferred for its turn in the line
    // of an endpoint that looks slow (the clock moved during the first request).
    const sameSubject = [60, 61, 62].map((n) => ({
      messageId: `m-${n}`,
      body: envelope(changeEvent(eventIdOf(n), { subject: 'c-60' })),
    }));
    await processDispatchBatch(sameSubject, harness.deps);
    await disabling;
    expect(receiver.log).toHaveLength(1);
    const deliveries = await harness.store.listDeliveries({ subscriptionId, limit: 10 });
    expect(deliveries.map((d) => d.deadReason ?? d.status).sort()).toEqual([
      'delivered',
      'subscription disabled',
      'subscription disabled',
    ]);
  });
});

describe('inline fan-out on DynamoDB (dynalite)', () => {
  it('costs one write per delivered event (its delivery folded in) and two list writes per batch', async () => {
    const tableName = await table.freshTable('inline');
    const commands = new Map<string, number>();
    let writeUnits = 0;
    table.client.middlewareStack.add(
      (next, context) => async (args) => {
        const name = String(context.commandName).replace(/Command$/, '');
        const input = args.input as Record<string, unknown>;
        const items = input.RequestItems as Record<string, unknown> | undefined;
        if (input.TableName !== tableName && !items?.[tableName]) return next(args);
        commands.set(name, (commands.get(name) ?? 0) + 1);
        input.ReturnConsumedCapacity = 'TOTAL';
        const result = await next(args);
        const output = result.output as {
          ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[];
        };
        const consumed = [output.ConsumedCapacity ?? []].flat();
        if (/^(Put|Update|BatchWrite)/.test(name))
          writeUnits += consumed.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
        return result;
      },
      { step: 'serialize', priority: 'high', name: `count-${tableName}` },
    );
    cleanup.push(async () => {
      table.client.middlewareStack.remove(`count-${tableName}`);
    });
    const clock = new ManualClock(Date.now());
    const store = new DynamoDbWebhookStore({ client: table.client, tableName, clock });
    const { receiver, harness, subscribe } = await setup(undefined, { clock, store });
    await subscribe('/ddb');
    commands.clear();
    writeUnits = 0;
    const batch = Array.from({ length: 10 }, (_, i) => ({
      messageId: `m-${i}`,
      body: envelope(largeCustomerEvent(100 + i)),
    }));
    expect((batch[0]?.body.length ?? 0) > 3000).toBe(true);
    expect(await processDispatchBatch(batch, harness.deps)).toEqual({ batchItemFailures: [] });
    expect(receiver.log.filter((r) => r.verifiedWith === 1)).toHaveLength(10);
    // One batch read of which events are new, the event list and the subscription's delivery
    // list, then after the sends the 10 events in one batch write, each holding its delivery:
    // no write between two sends, no item per delivery.
    expect(Object.fromEntries(commands)).toEqual({
      Query: 1,
      GetItem: 1,
      BatchGetItem: 1,
      BatchWriteItem: 1,
      PutItem: 2,
    });
    // Every event item within one write unit (the ~3.4 KB bodies are stored compressed), and
    // one unit for each list item.
    expect(writeUnits).toBe(12);
    const [entry] = await harness.service.listDeliveries({ eventId: eventIdOf(104) });
    expect(entry?.delivery.status).toBe('delivered');
    expect(entry?.attempts.map((a) => a.status)).toEqual([200]);
    expect(await harness.service.getEvent(eventIdOf(104))).toEqual(largeCustomerEvent(104));
    expect((await harness.service.listEvents({ limit: 20 })).map((e) => e.id).sort()).toEqual(
      batch.map((_, i) => eventIdOf(100 + i)).sort(),
    );
  });
});
