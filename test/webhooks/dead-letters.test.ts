import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import { WEBHOOK_RETENTION_MS } from '../../shared/webhooks/dynamodb-webhook-keys.ts';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../../shared/webhooks/retry-policy.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, envelope, eventIdOf } from './support/harness.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('webhooks-dead-letters');
});
afterAll(async () => {
  await table.stop();
});

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const HOUR_MS = 3_600_000;

/** A dispatcher on a fresh table of the DynamoDB store, on a manual clock; the receiver answers 503. */
async function failingEndpoint() {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const tableName = await table.freshTable('dead');
  const store = new DynamoDbWebhookStore({ client: table.client, tableName, clock });
  const fixture = await startDispatchFixture(
    cleanup,
    () => ({ kind: 'respond', status: 503, body: 'down for maintenance' }),
    { clock, store },
  );
  /** The `ttl` attribute (epoch seconds) of one raw item. */
  const ttlOf = async (pk: string, sk: string) => {
    const { Item } = await table.client.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: pk }, sk: { S: sk } } }),
    );
    return Item?.ttl?.N === undefined ? undefined : Number(Item.ttl.N);
  };
  return { ...fixture, store, ttlOf };
}

describe('a delivery on the default schedule', () => {
  it('is attempted 8 times (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h apart) and then dead-lettered with its body and last status', async () => {
    const { receiver, harness, subscribe, clock, store } = await failingEndpoint();
    const { subscription } = await subscribe('/down');
    const started = clock.now();
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1))));
    await harness.drainVisible();
    // Each step with its +20 % jitter at most (and a minute for the queue's whole seconds).
    for (const stepMs of DEFAULT_RETRY_SCHEDULE_MS) {
      const before = receiver.log.length;
      await clock.advance(stepMs * 0.8 - 1000);
      await harness.drainVisible();
      expect(receiver.log).toHaveLength(before);
      await clock.advance(stepMs * 0.4 + 60_000);
      await harness.drainVisible();
      expect(receiver.log).toHaveLength(before + 1);
    }
    // Nothing more, however long one waits.
    await clock.advance(48 * HOUR_MS);
    await harness.drainVisible();
    expect(receiver.log).toHaveLength(8);
    expect(new Set(receiver.log.map((r) => r.headers['webhook-id']))).toEqual(
      new Set([eventIdOf(1)]),
    );

    const [deadId] = await store.listDeadLetters(subscription.id, 0);
    expect(deadId).toBeDefined();
    const record = await store.getDeliveryRecord(deadId!);
    expect(record?.delivery).toMatchObject({
      status: 'dead',
      attempts: 8,
      lastStatus: 503,
      deadReason: 'no success after 8 attempts',
    });
    expect(record?.delivery.deadAt).toBeGreaterThan(started + 27 * HOUR_MS * 0.8);
    expect(record?.attempts.at(-1)).toMatchObject({
      attempt: 8,
      status: 503,
      outcome: 'rejected',
      responseBody: 'down for maintenance',
    });
    // The event's body is kept with it, byte for byte, for a redelivery.
    const stored = await store.getEvent(eventIdOf(1));
    expect(stored?.body).toBe(receiver.log[0]?.body);
  });

  it('keeps its event as long as its dead letter, counted from the dead-lettering, not from the event', async () => {
    const { harness, subscribe, clock, ttlOf, store } = await failingEndpoint();
    const { subscription } = await subscribe('/down');
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(2))));
    await harness.drainVisible();
    for (const stepMs of DEFAULT_RETRY_SCHEDULE_MS) {
      await clock.advance(stepMs * 1.2 + 60_000);
      await harness.drainVisible();
    }
    const [deadId] = await store.listDeadLetters(subscription.id, 0);
    const dead = await store.getDelivery(deadId!);
    expect(dead?.status).toBe('dead');
    const deadLetterTtl = await ttlOf(
      `DLQ#${subscription.id}`,
      `${new Date(dead!.deadAt!).toISOString()}#${dead!.id}`,
    );
    expect(deadLetterTtl).toBe(Math.floor((dead!.deadAt! + WEBHOOK_RETENTION_MS) / 1000));
    // The event item, written a day and more before, must not expire before the dead letter:
    // a redelivery on the dead letter's last day would find no event and die again.
    const eventTtl = await ttlOf(`EVENT#${eventIdOf(2)}`, 'EVENT');
    expect(eventTtl).toBeGreaterThanOrEqual(deadLetterTtl!);
  });

  it('keeps its event through a redelivery made late in the dead letter life, and its retries', async () => {
    const { harness, subscribe, clock, ttlOf, store } = await failingEndpoint();
    const { subscription } = await subscribe('/down', { retrySchedule: [60_000] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(3))));
    await harness.drainVisible();
    await clock.advance(75_000);
    await harness.drainVisible();
    expect(await store.listDeadLetters(subscription.id, 0)).toHaveLength(1);
    // 29 days on, an operator redelivers it: a new delivery, kept 30 days from now, whose
    // retries need the event's body; the event must last as long.
    await clock.advance(29 * 24 * HOUR_MS);
    const [again] = await harness.service.redeliverDeadLetters(subscription.id, 0);
    const deliveryTtl = await ttlOf(`DELIVERY#${again!.id}`, 'DELIVERY');
    expect(deliveryTtl).toBe(Math.floor((clock.now() + WEBHOOK_RETENTION_MS) / 1000));
    expect(await ttlOf(`EVENT#${eventIdOf(3)}`, 'EVENT')).toBeGreaterThanOrEqual(deliveryTtl!);
  });
});
