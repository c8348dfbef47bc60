import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { fanOutDeliveryId } from '../../shared/webhooks/delivered-at-once.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import { MemoryWebhookStore } from '../../shared/webhooks/memory-store.ts';
import type { Attempt, Delivery, WebhookStore } from '../../shared/webhooks/store.ts';
import type { Subscription } from '../../shared/webhooks/subscription.ts';
import { eventListPages, listedEvent } from './support/event-list.ts';
import { changeEvent, createHarness, envelope, eventIdOf } from './support/harness.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';
import { startReceiver } from './support/receiver.ts';

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('webhooks-contract');
});
afterAll(async () => {
  await table.stop();
});

const clock = new ManualClock(Date.UTC(2026, 0, 1));
const implementations: [string, () => Promise<WebhookStore>][] = [
  ['MemoryWebhookStore', async () => new MemoryWebhookStore()],
  [
    'DynamoDbWebhookStore',
    async () => {
      // A fresh table per test keeps the tests independent on one dynalite server.
      const tableName = await table.freshTable('contract');
      return new DynamoDbWebhookStore({ client: table.client, tableName, clock });
    },
  ],
];

const subscription = (id: string): Subscription => ({
  id,
  url: 'https://hooks.example.com/in',
  events: ['customer.*'],
  scope: { chainIds: ['c1'] },
  enabled: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  secret: 'whsec_c2VjcmV0',
  previousSecret: 'whsec_b2xk',
  previousSecretExpiresAt: 123,
});

const delivery = (id: string, fields: Partial<Delivery> = {}): Delivery => ({
  id,
  eventId: 'evt_1',
  subscriptionId: 'sub_1',
  status: 'pending',
  attempts: 0,
  nextAttemptAt: 1000,
  createdAt: 1000,
  updatedAt: 1000,
  version: 1,
  ...fields,
});

describe.each(implementations)('%s (WebhookStore contract)', (_name, create) => {
  it('stores, lists, replaces and deletes subscriptions', async () => {
    const store = await create();
    await store.putSubscription(subscription('sub_1'));
    await store.putSubscription(subscription('sub_2'));
    expect(await store.getSubscription('sub_1')).toEqual(subscription('sub_1'));
    await store.putSubscription({ ...subscription('sub_1'), enabled: false });
    expect((await store.getSubscription('sub_1'))?.enabled).toBe(false);
    expect((await store.listSubscriptions()).map((s) => s.id).sort()).toEqual(['sub_1', 'sub_2']);
    expect(await store.deleteSubscription('sub_2')).toBe(true);
    expect(await store.getSubscription('sub_2')).toBeUndefined();
    // Deleted already (by a concurrent request, say): said so, and nothing else changes.
    expect(await store.deleteSubscription('sub_2')).toBe(false);
    expect((await store.listSubscriptions()).map((s) => s.id)).toEqual(['sub_1']);
  });

  it('replaces a subscription only over the version it was read at, never one removed', async () => {
    const store = await create();
    // Stored without a version: by a create, or before subscriptions had versions.
    await store.putSubscription(subscription('sub_1'));
    const first = { ...subscription('sub_1'), description: 'first' };
    expect(await store.replaceSubscription(first, { ifVersion: 1 })).toBeUndefined();
    expect(await store.replaceSubscription(first, { ifVersion: undefined })).toEqual({
      ...first,
      version: 1,
    });
    // A second writer that read it before the first wrote loses, and nothing of it is stored.
    const stale = { ...subscription('sub_1'), enabled: false };
    expect(await store.replaceSubscription(stale, { ifVersion: undefined })).toBeUndefined();
    expect(await store.getSubscription('sub_1')).toEqual({ ...first, version: 1 });
    expect(await store.replaceSubscription(stale, { ifVersion: 1 })).toEqual({
      ...stale,
      version: 2,
    });
    expect(await store.getSubscription('sub_1')).toEqual({ ...stale, version: 2 });
    expect(await store.replaceSubscription(first, { ifVersion: 1 })).toBeUndefined();
    // A change read before a removal does not bring the subscription back.
    await store.deleteSubscription('sub_1');
    expect(await store.replaceSubscription(first, { ifVersion: 2 })).toBeUndefined();
    expect(await store.replaceSubscription(first, { ifVersion: undefined })).toBeUndefined();
    expect(await store.getSubscription('sub_1')).toBeUndefined();
  });

  it('keeps the first copy of an event and lists events newest first by type', async () => {
    const store = await create();
    await store.putEvent({ id: 'evt_a', type: 'customer.updated', storedAt: 1, body: '{"a":1}' });
    await store.putEvent({ id: 'evt_a', type: 'customer.updated', storedAt: 9, body: '{"a":2}' });
    await store.putEvent({ id: 'evt_b', type: 'resource.updated', storedAt: 2, body: '{}' });
    await store.putEvent({ id: 'evt_c', type: 'customer.updated', storedAt: 3, body: '{}' });
    expect(await store.getEvent('evt_a')).toEqual({
      id: 'evt_a',
      type: 'customer.updated',
      storedAt: 1,
      body: '{"a":1}',
    });
    expect((await store.listEvents({ limit: 10 })).events.map((e) => e.id)).toEqual([
      'evt_c',
      'evt_b',
      'evt_a',
    ]);
    expect(
      (await store.listEvents({ limit: 1, type: 'customer.updated' })).events.map((e) => e.id),
    ).toEqual(['evt_c']);
    expect(await store.getEvent('evt_missing')).toBeUndefined();
  });

  it('pages through the event list from where the last page ended, each event once', async () => {
    const store = await create();
    // Three listed one by one, then a fan-out of four listed together at one instant.
    for (const [index, id] of ['evt_a', 'evt_b', 'evt_c'].entries())
      await store.putEvent(listedEvent(id, 100 + index));
    const batch = ['evt_d', 'evt_e', 'evt_f', 'evt_g'].map((id) => listedEvent(id, 200));
    for (const stored of batch) await store.putEvent(stored, { deferListing: true });
    await store.indexEvents(batch);
    expect(await eventListPages(store, 3, 5)).toEqual([
      ['evt_g', 'evt_f', 'evt_e'],
      ['evt_d', 'evt_c', 'evt_b'],
      ['evt_a'],
    ]);
  });

  it('pages through fan-outs listed in the same millisecond (two lanes at once) in one order, each event once', async () => {
    const store = await create();
    // Each fan-out is listed on its own; their ids interleave.
    for (const ids of [['evt_9', 'evt_1'], ['evt_5'], ['evt_7', 'evt_3']]) {
      const batch = ids.map((id) => listedEvent(id, 300));
      for (const stored of batch) await store.putEvent(stored, { deferListing: true });
      await store.indexEvents(batch);
    }
    expect(await eventListPages(store, 2, 5)).toEqual([
      ['evt_9', 'evt_7'],
      ['evt_5', 'evt_3'],
      ['evt_1'],
    ]);
  });

  it('fills a page with stored events when a newer one is listed and not yet stored', async () => {
    const store = await create();
    await store.putEvent(listedEvent('evt_a', 100));
    await store.putEvent(listedEvent('evt_b', 101));
    // A fan-out lists its new events before it stores them (after its sends): in between, the
    // list holds an event that cannot be read yet.
    await store.indexEvents([listedEvent('evt_c', 102)]);
    const first = await store.listEvents({ limit: 1 });
    expect(first.events.map((e) => e.id)).toEqual(['evt_b']);
    expect(first.next).toEqual({ at: 101, id: 'evt_b' });
    expect(first.listedUnstored).toEqual([102]);
    const rest = await store.listEvents({ limit: 5, ...(first.next ? { after: first.next } : {}) });
    expect(rest.events.map((e) => e.id)).toEqual(['evt_a']);
    expect(rest.next).toBeUndefined();
  });

  it('creates a delivery once and updates it only from the version it was read at', async () => {
    const store = await create();
    expect(await store.createDelivery(delivery('dlv_1'))).toBe(true);
    expect(await store.createDelivery(delivery('dlv_1', { attempts: 5 }))).toBe(false);
    expect(await store.updateDelivery(delivery('dlv_1', { attempts: 1, version: 2 }))).toBe(true);
    expect(await store.updateDelivery(delivery('dlv_1', { attempts: 9, version: 2 }))).toBe(false);
    expect(await store.getDelivery('dlv_1')).toEqual(
      delivery('dlv_1', { attempts: 1, version: 2 }),
    );
  });

  it('lists deliveries by subscription and by event, newest first', async () => {
    const store = await create();
    await store.createDelivery(delivery('dlv_1', { createdAt: 1 }));
    await store.createDelivery(delivery('dlv_2', { createdAt: 2, eventId: 'evt_2' }));
    await store.createDelivery(delivery('dlv_3', { createdAt: 3, subscriptionId: 'sub_2' }));
    expect(
      (await store.listDeliveries({ subscriptionId: 'sub_1', limit: 10 })).map((d) => d.id),
    ).toEqual(['dlv_2', 'dlv_1']);
    expect((await store.listDeliveries({ eventId: 'evt_1', limit: 10 })).map((d) => d.id)).toEqual([
      'dlv_3',
      'dlv_1',
    ]);
    expect(
      (await store.listDeliveries({ subscriptionId: 'sub_1', eventId: 'evt_1', limit: 10 })).map(
        (d) => d.id,
      ),
    ).toEqual(['dlv_1']);
    expect(
      (await store.listDeliveries({ subscriptionId: 'sub_1', limit: 1 })).map((d) => d.id),
    ).toEqual(['dlv_2']);
  });

  it('fills a page of a subscription past listed deliveries that have no record yet (in flight)', async () => {
    const store = await create();
    for (let n = 1; n <= 3; n++) await store.createDelivery(delivery(`dlv_${n}`, { createdAt: n }));
    clock.advance(1000);
    // Listed before they exist, as a fan-out lists its deliveries before their outcomes.
    await store.indexDeliveries(
      Array.from({ length: 8 }, (_, n) => delivery(`dlv_new${n}`, { createdAt: 100 + n })),
    );
    expect(
      (await store.listDeliveries({ subscriptionId: 'sub_1', limit: 3 })).map((d) => d.id),
    ).toEqual(['dlv_3', 'dlv_2', 'dlv_1']);
    expect(
      (await store.listDeliveryRecords({ subscriptionId: 'sub_1', limit: 2 })).map(
        (r) => r.delivery.id,
      ),
    ).toEqual(['dlv_3', 'dlv_2']);
  });

  it('reads the deliveries of many subscriptions together as it reads each, every id answered', async () => {
    const store = await create();
    const retry = (deliveryId: string, n: number): Attempt => ({
      deliveryId,
      attempt: n,
      at: n,
      status: 503,
      latencyMs: 3,
      responseHeaders: {},
      responseBody: 'busy',
      outcome: 'retry',
    });
    // sub_1: an item of its own with a folded log, one made without attempts (its attempt
    // lines are its log), and one listed that has no record yet (in flight).
    await store.createDelivery(delivery('dlv_1', { createdAt: 1, attempts: 1 }), {
      attempts: [retry('dlv_1', 1)],
    });
    await store.createDelivery(delivery('dlv_2', { createdAt: 2 }));
    await store.putAttempt(retry('dlv_2', 1));
    await store.indexDeliveries([delivery('dlv_new', { createdAt: 5 })]);
    // sub_2: a fan-out delivery that succeeded at once, kept on its event.
    const event = { id: 'evt_f', type: 'customer.updated', storedAt: 3, body: '{}' };
    const atOnceId = fanOutDeliveryId('evt_f', 'sub_2');
    await store.indexDeliveries([
      delivery(atOnceId, { eventId: 'evt_f', subscriptionId: 'sub_2', createdAt: 3 }),
    ]);
    await store.putFanOuts([
      {
        event,
        deliveredAtOnce: [
          { id: atOnceId, subscriptionId: 'sub_2', at: 4, latencyMs: 1, status: 200 },
        ],
        others: [],
      },
    ]);
    const ids = ['sub_1', 'sub_2', 'sub_none'];
    for (const limit of [1, 10]) {
      const together = await store.listDeliveryRecordsBySubscription(ids, limit);
      expect([...together.keys()]).toEqual(ids);
      for (const id of ids) {
        expect(together.get(id)).toEqual(
          await store.listDeliveryRecords({ subscriptionId: id, limit }),
        );
      }
    }
    const records = await store.listDeliveryRecordsBySubscription(['sub_1', 'sub_2'], 10);
    expect(records.get('sub_1')?.map((r) => [r.delivery.id, r.attempts.length])).toEqual([
      ['dlv_2', 1],
      ['dlv_1', 1],
    ]);
    expect(records.get('sub_2')?.map((r) => r.delivery.id)).toEqual([atOnceId]);
  });

  it('reads the endpoint states of many subscriptions together, none for those without one', async () => {
    const store = await create();
    const state = (subscriptionId: string, consecutiveFailures: number) => ({
      subscriptionId,
      consecutiveFailures,
      failingNotified: false,
    });
    await store.putEndpointState(state('sub_1', 1), { ifVersion: undefined });
    await store.putEndpointState(state('sub_3', 3), { ifVersion: undefined });
    expect(await store.getEndpointStates(['sub_1', 'sub_2', 'sub_3'])).toEqual(
      new Map([
        ['sub_1', { ...state('sub_1', 1), version: 1 }],
        ['sub_3', { ...state('sub_3', 3), version: 1 }],
      ]),
    );
    expect(await store.getEndpointStates([])).toEqual(new Map());
  });

  it('keeps the attempt log in order', async () => {
    const store = await create();
    const attempt = (n: number): Attempt => ({
      deliveryId: 'dlv_1',
      attempt: n,
      at: n * 1000,
      status: 500,
      latencyMs: 12,
      responseHeaders: { 'retry-after': '5' },
      responseBody: 'nope',
      outcome: 'retry',
      nextAttemptAt: n * 1000 + 500,
    });
    for (const n of [2, 1, 10]) await store.putAttempt(attempt(n));
    expect(await store.listAttempts('dlv_1')).toEqual([attempt(1), attempt(2), attempt(10)]);
    expect(await store.listAttempts('dlv_other')).toEqual([]);
  });

  it('says whether a put stored the event and keeps its exact body', async () => {
    const store = await create();
    const body = JSON.stringify({ id: 'evt_u', note: 'Floriańska 東京 🏨', n: 1.5e-7 });
    const event = { id: 'evt_u', type: 'customer.updated', storedAt: 5, body };
    expect(await store.putEvent(event)).toBe(true);
    expect(await store.putEvent({ ...event, body: '{}' })).toBe(false);
    expect((await store.getEvent('evt_u'))?.body).toBe(body);
  });

  it('lists events stored with deferred listing once indexed, each once however often', async () => {
    const store = await create();
    const event = (id: string, storedAt: number) => ({
      id,
      type: id === 'evt_r' ? 'resource.updated' : 'customer.updated',
      storedAt,
      body: `{"id":"${id}"}`,
    });
    await store.putEvent(event('evt_1', 1), { deferListing: true });
    await store.putEvent(event('evt_2', 1), { deferListing: true });
    expect((await store.listEvents({ limit: 10 })).events).toEqual([]);
    await store.indexEvents([event('evt_1', 1), event('evt_2', 1), event('evt_r', 1)]);
    await store.indexEvents([event('evt_1', 2)]);
    await store.putEvent(event('evt_r', 3), { deferListing: true });
    const listed = (await store.listEvents({ limit: 10 })).events;
    expect(listed.map((e) => e.id).sort()).toEqual(['evt_1', 'evt_2', 'evt_r']);
    expect(listed.find((e) => e.id === 'evt_1')?.body).toBe('{"id":"evt_1"}');
    expect(
      (await store.listEvents({ limit: 10, type: 'resource.updated' })).events.map((e) => e.id),
    ).toEqual(['evt_r']);
  });

  it('stores a fan-out in one write: deliveries that succeeded at once on the event, the others on their own', async () => {
    const store = await create();
    const event = { id: 'evt_f', type: 'customer.updated', storedAt: 10, body: '{"id":"evt_f"}' };
    const atOnceId = fanOutDeliveryId('evt_f', 'sub_1');
    const atOnce = { id: atOnceId, subscriptionId: 'sub_1', at: 11, latencyMs: 4, status: 204 };
    const retry: Attempt = {
      deliveryId: 'dlv_b',
      attempt: 1,
      at: 12,
      status: 503,
      latencyMs: 7,
      responseHeaders: { 'retry-after': '5' },
      responseBody: 'busy',
      outcome: 'retry',
      nextAttemptAt: 5012,
    };
    const pending = delivery('dlv_b', {
      eventId: 'evt_f',
      subscriptionId: 'sub_2',
      attempts: 1,
      version: 2,
      createdAt: 10,
      nextAttemptAt: 5012,
      updatedAt: 19,
      lastStatus: 503,
    });
    const never = delivery('dlv_never', { eventId: 'evt_f', createdAt: 10 });
    const listedOnce = delivery(atOnceId, { eventId: 'evt_f', createdAt: 10 });
    // Listed before they exist (as fan-out does), then listed again: shown once, and only once stored.
    await store.indexDeliveries([listedOnce, pending, never]);
    await store.indexDeliveries([listedOnce]);
    expect(await store.getEventRecords(['evt_f'])).toEqual(new Map());
    await store.putFanOuts([
      { event, deliveredAtOnce: [atOnce], others: [{ delivery: pending, attempts: [retry] }] },
    ]);
    expect(await store.getEvent('evt_f')).toEqual(event);
    expect(await store.getEventRecords(['evt_f', 'evt_missing'])).toEqual(
      new Map([['evt_f', { event, deliveredAtOnce: [atOnce] }]]),
    );
    const delivered = {
      id: atOnceId,
      eventId: 'evt_f',
      subscriptionId: 'sub_1',
      status: 'delivered',
      attempts: 1,
      nextAttemptAt: 10,
      createdAt: 10,
      updatedAt: 15,
      version: 2,
      lastStatus: 204,
    };
    const deliveredAttempt = {
      deliveryId: atOnceId,
      attempt: 1,
      at: 11,
      status: 204,
      latencyMs: 4,
      responseHeaders: {},
      responseBody: '',
      outcome: 'delivered',
    };
    const byEvent = await store.listDeliveryRecords({ eventId: 'evt_f', limit: 10 });
    expect(byEvent).toEqual([
      { delivery: pending, attempts: [retry] },
      { delivery: delivered, attempts: [deliveredAttempt] },
    ]);
    expect((await store.listDeliveries({ eventId: 'evt_f', limit: 10 })).map((d) => d.id)).toEqual([
      'dlv_b',
      atOnceId,
    ]);
    expect(await store.listDeliveryRecords({ subscriptionId: 'sub_1', limit: 10 })).toEqual([
      { delivery: delivered, attempts: [deliveredAttempt] },
    ]);
    expect(await store.listDeliveries({ subscriptionId: 'sub_2', limit: 10 })).toEqual([pending]);
    expect(
      await store.listDeliveries({ subscriptionId: 'sub_2', eventId: 'evt_other', limit: 10 }),
    ).toEqual([]);
    // Only a delivery with an item of its own is found by id: the one with a retry to make.
    expect(await store.getDeliveryRecord('dlv_b')).toEqual({
      delivery: pending,
      attempts: [retry],
    });
    expect(await store.getDelivery(atOnceId)).toBeUndefined();
  });

  it('folds the attempt log into the delivery and keeps it across updates without one', async () => {
    const store = await create();
    const attempt = (n: number): Attempt => ({
      deliveryId: 'dlv_f',
      attempt: n,
      at: n,
      status: 500,
      latencyMs: 3,
      responseHeaders: { 'x-n': String(n) },
      responseBody: 'no',
      outcome: 'retry',
      nextAttemptAt: n + 10,
    });
    await store.createDelivery(delivery('dlv_f', { attempts: 1 }), { attempts: [attempt(1)] });
    expect(await store.getDeliveryRecord('dlv_f')).toEqual({
      delivery: delivery('dlv_f', { attempts: 1 }),
      attempts: [attempt(1)],
    });
    expect(await store.updateDelivery(delivery('dlv_f', { attempts: 1, version: 2 }))).toBe(true);
    expect((await store.getDeliveryRecord('dlv_f'))?.attempts).toEqual([attempt(1)]);
    const log = [attempt(1), attempt(2)];
    expect(await store.updateDelivery(delivery('dlv_f', { attempts: 2, version: 3 }), log)).toBe(
      true,
    );
    expect(await store.updateDelivery(delivery('dlv_f', { version: 3 }), [])).toBe(false);
    await store.putAttempt(attempt(3));
    expect(await store.listAttempts('dlv_f')).toEqual([attempt(1), attempt(2), attempt(3)]);
    expect(await store.getDeliveryRecord('dlv_missing')).toBeUndefined();
  });

  it('lists dead letters since a time, oldest first, and removes them', async () => {
    const store = await create();
    const dead = (id: string, deadAt: number) => delivery(id, { status: 'dead', deadAt });
    await store.addDeadLetter(dead('dlv_2', 2000));
    await store.addDeadLetter(dead('dlv_1', 1000));
    await store.addDeadLetter(dead('dlv_3', 3000));
    expect(await store.listDeadLetters('sub_1', 0)).toEqual(['dlv_1', 'dlv_2', 'dlv_3']);
    expect(await store.listDeadLetters('sub_1', 2000)).toEqual(['dlv_2', 'dlv_3']);
    await store.removeDeadLetter(dead('dlv_2', 2000));
    expect(await store.listDeadLetters('sub_1', 0)).toEqual(['dlv_1', 'dlv_3']);
    expect(await store.listDeadLetters('sub_2', 0)).toEqual([]);
  });

  it('stores endpoint state over the version it was made from, and no other', async () => {
    const store = await create();
    expect(await store.getEndpointState('sub_1')).toBeUndefined();
    const state = {
      subscriptionId: 'sub_1',
      pausedUntil: 5,
      consecutiveFailures: 2,
      failingSince: 1,
      failingNotified: false,
    };
    const first = await store.putEndpointState(state, { ifVersion: undefined });
    expect(first).toEqual({ ...state, version: 1 });
    expect(await store.getEndpointState('sub_1')).toEqual({ ...state, version: 1 });
    // A second writer that also read no state loses; one made from version 1 wins.
    expect(await store.putEndpointState(state, { ifVersion: undefined })).toBeUndefined();
    const second = { ...state, consecutiveFailures: 3 };
    expect(await store.putEndpointState(second, { ifVersion: 1 })).toEqual({
      ...second,
      version: 2,
    });
    // A writer still at version 1 loses to it, and the stored state stays.
    expect(await store.putEndpointState(state, { ifVersion: 1 })).toBeUndefined();
    expect(await store.getEndpointState('sub_1')).toEqual({ ...second, version: 2 });
  });
});

describe('dispatcher on DynamoDB (dynalite)', () => {
  it('delivers a fanned-out event with a verified signature and logs the attempt', async () => {
    const receiver = await startReceiver();
    const harnessClock = new ManualClock(Date.now());
    const store = new DynamoDbWebhookStore({
      client: table.client,
      tableName: table.tableName,
      clock: harnessClock,
    });
    const harness = createHarness({ clock: harnessClock, store });
    const created = await harness.service.createSubscription({ url: receiver.url('/ddb') });
    receiver.secrets.set('/ddb', [created.secret]);
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(77))));
    await harness.drainVisible();
    expect(receiver.log.map((r) => [r.headers['webhook-id'], r.verifiedWith])).toEqual([
      [eventIdOf(77), 1],
    ]);
    const [entry] = await harness.service.listDeliveries({
      subscriptionId: created.subscription.id,
    });
    expect(entry?.delivery.status).toBe('delivered');
    expect(entry?.attempts.map((a) => a.status)).toEqual([200]);
    await harness.sender.close();
    await receiver.close();
  });
});
