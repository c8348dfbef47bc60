import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import { MemoryWebhookStore } from '../../shared/webhooks/memory-store.ts';
import type { Attempt, Delivery, WebhookStore } from '../../shared/webhooks/store.ts';
import type { Subscription } from '../../shared/webhooks/subscription.ts';
import { changeEvent, createHarness, envelope, eventIdOf } from './support/harness.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';
import { startReceiver } from './support/receiver.ts';

let table: LocalTable;
let tableCount = 0;
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
      const tableName = `contract-${++tableCount}`;
      await createStateTable(table.client, tableName);
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
    await store.deleteSubscription('sub_2');
    expect(await store.getSubscription('sub_2')).toBeUndefined();
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
    expect((await store.listEvents({ limit: 10 })).map((e) => e.id)).toEqual([
      'evt_c',
      'evt_b',
      'evt_a',
    ]);
    expect(
      (await store.listEvents({ limit: 1, type: 'customer.updated' })).map((e) => e.id),
    ).toEqual(['evt_c']);
    expect(await store.getEvent('evt_missing')).toBeUndefined();
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

  it('stores endpoint state', async () => {
    const store = await create();
    expect(await store.getEndpointState('sub_1')).toBeUndefined();
    const state = {
      subscriptionId: 'sub_1',
      pausedUntil: 5,
      consecutiveFailures: 2,
      failingSince: 1,
      failingNotified: false,
    };
    await store.putEndpointState(state);
    expect(await store.getEndpointState('sub_1')).toEqual(state);
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
