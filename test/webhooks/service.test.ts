import { afterEach, describe, expect, it } from 'vitest';
import { buildChangeEvent } from '../../shared/changes/event.ts';
import { hashEventId } from '../../shared/changes/event-id.ts';
import type { ManualClock } from '../../shared/clock.ts';
import { ValidationError } from '../../shared/errors.ts';
import { WebhookNotFoundError } from '../../shared/webhooks/subscription-admin.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, envelope, eventIdOf } from './support/harness.ts';
import type { ReceiverAction } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function setup(decide?: (request: { path: string }) => ReceiverAction) {
  const fixture = await startDispatchFixture(cleanup, decide);
  const subscribe = async (path: string, fields: Record<string, unknown> = {}) =>
    (await fixture.subscribe(path, fields)).subscription;
  return { ...fixture, service: fixture.harness.service, subscribe };
}

describe('webhook admin service', () => {
  it('creates subscriptions with a whsec_ secret that is never shown again', async () => {
    const { service } = await setup();
    const created = await service.createSubscription({
      url: 'http://127.0.0.1:8/hook',
      events: ['customer.*'],
      description: 'CRM sync',
    });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.subscription).toMatchObject({
      events: ['customer.*'],
      enabled: true,
      description: 'CRM sync',
    });
    expect(created.subscription.id).toMatch(/^sub_/);
    const listed = await service.listSubscriptions();
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    expect(JSON.stringify(await service.getSubscription(created.subscription.id))).not.toContain(
      'whsec_',
    );
  });

  it('rejects bad input with an error naming the field', async () => {
    const { service } = await setup();
    const attempts: [unknown, string][] = [
      [{ url: 'ftp://x.example.com' }, 'url'],
      [{ url: 'http://169.254.169.254/latest' }, 'url'],
      [{ url: 'http://127.0.0.1/x#frag' }, 'url'],
      [{ url: 'http://127.0.0.1/x', events: ['customer..updated'] }, 'events[0]'],
      [{ url: 'http://127.0.0.1/x', retrySchedule: [-1] }, 'retrySchedule[0]'],
      [{}, 'url'],
    ];
    for (const [input, path] of attempts) {
      const error = await service.createSubscription(input).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).path).toBe(path);
    }
    await expect(service.getSubscription('sub_missing')).rejects.toBeInstanceOf(
      WebhookNotFoundError,
    );
  });

  it('updates filters and enabled state, and removes subscriptions', async () => {
    const { service, subscribe } = await setup();
    const sub = await subscribe('/x');
    const updated = await service.updateSubscription(sub.id, {
      events: ['resource.updated'],
      enabled: false,
    });
    expect(updated).toMatchObject({ events: ['resource.updated'], enabled: false });
    expect((await service.updateSubscription(sub.id, { enabled: true })).enabled).toBe(true);
    await expect(
      service.updateSubscription(sub.id, { url: 'https://0.0.0.0/' }),
    ).rejects.toMatchObject({ path: 'url' });
    await expect(
      service.updateSubscription(sub.id, { url: 'http://127.0.0.1:8/x#frag' }),
    ).rejects.toMatchObject({ path: 'url', message: expect.stringContaining('fragment') });
    await service.removeSubscription(sub.id);
    expect(await service.listSubscriptions()).toEqual([]);
  });

  it('lists and shows stored events, and replays one to one or all matching subscriptions with its id', async () => {
    const { receiver, harness, service, subscribe } = await setup();
    const a = await subscribe('/a');
    await subscribe('/b', { events: ['customer.updated'] });
    const c = await subscribe('/c', { events: ['resource.*'] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1))));
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(2), { type: 'customer.created' })));
    await harness.drainVisible();
    expect((await service.listEvents()).map((e) => e.id).sort()).toEqual([
      eventIdOf(1),
      eventIdOf(2),
    ]);
    expect((await service.listEvents({ type: 'customer.created' })).map((e) => e.id)).toEqual([
      eventIdOf(2),
    ]);
    expect(await service.getEvent(eventIdOf(1))).toEqual(changeEvent(eventIdOf(1)));
    receiver.log.length = 0;
    await service.replayEvent(eventIdOf(1), a.id);
    await harness.drainVisible();
    expect(receiver.log.map((r) => [r.path, r.headers['webhook-id']])).toEqual([
      ['/a', eventIdOf(1)],
    ]);
    // Named, a subscription whose filters refuse the event is refused, not sent it.
    await expect(service.replayEvent(eventIdOf(1), c.id)).rejects.toMatchObject({
      path: 'subscriptionId',
      message: expect.stringContaining('its filters: events resource.*'),
    });
    receiver.log.length = 0;
    await service.replayEvent(eventIdOf(1));
    await harness.drainVisible();
    expect(receiver.log.map((r) => r.path).sort()).toEqual(['/a', '/b']);
    expect(receiver.log.every((r) => r.verifiedWith === 1)).toBe(true);
    const deliveries = await service.listDeliveries({ eventId: eventIdOf(1) });
    expect(deliveries).toHaveLength(5);
    expect(
      deliveries.every((d) => d.delivery.status === 'delivered' && d.attempts.length === 1),
    ).toBe(true);
    expect(await service.listDeliveries()).toHaveLength(6);
  });

  it('redelivers the dead letters of a subscription since a time', async () => {
    let up = false;
    const { receiver, harness, service, subscribe, clock } = await setup(() => ({
      kind: 'respond',
      status: up ? 200 : 500,
    }));
    const sub = await subscribe('/later', { retrySchedule: [1000] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1))));
    await harness.drainVisible();
    await clock.advance(2_000);
    await harness.drainVisible();
    expect(await harness.store.listDeadLetters(sub.id, 0)).toHaveLength(1);
    await clock.advance(1_000);
    const since = clock.now();
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(2))));
    await harness.drainVisible();
    await clock.advance(2_000);
    await harness.drainVisible();
    expect(await harness.store.listDeadLetters(sub.id, 0)).toHaveLength(2);
    up = true;
    receiver.log.length = 0;
    const redelivered = await service.redeliverDeadLetters(sub.id, since);
    expect(redelivered.map((d) => d.eventId)).toEqual([eventIdOf(2)]);
    await harness.drainVisible();
    expect(receiver.log.map((r) => r.headers['webhook-id'])).toEqual([eventIdOf(2)]);
    expect(await harness.store.listDeadLetters(sub.id, 0)).toHaveLength(1);
  });

  it('resyncs stored snapshots to one subscription as <entity>.snapshot events', async () => {
    const { receiver, harness, service, subscribe } = await setup();
    const target = await subscribe('/new', { events: ['customer.updated', 'resource.*'] });
    await subscribe('/other');
    const source = {
      async *list(entityType: string) {
        for (let i = 0; i < 3; i++) {
          yield {
            entityId: `${entityType}-${i}`,
            record: { Id: `${entityType}-${i}` },
            scope: { chainId: 'c' },
            connectionId: 'main',
          };
        }
      },
    };
    expect(await service.resync(target.id, ['customer', 'resource'], source)).toBe(6);
    await harness.drainVisible();
    expect(receiver.log).toHaveLength(6);
    expect(receiver.log.every((r) => r.path === '/new' && r.verifiedWith === 1)).toBe(true);
    const bodies = receiver.log.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.type).sort()).toEqual([
      ...Array(3).fill('customer.snapshot'),
      ...Array(3).fill('resource.snapshot'),
    ]);
    expect(bodies[0]).toMatchObject({
      source: 'connector/main',
      data: { change: 'snapshot', previous: null },
    });
    expect(new Set(bodies.map((b) => b.id)).size).toBe(6);
  });

  it('resyncs a record two connections hold once per connection, each with its own source', async () => {
    const { receiver, harness, service, subscribe } = await setup();
    const target = await subscribe('/both', { events: ['customer.*'] });
    const source = {
      async *list(entityType: string) {
        for (const connectionId of ['hotel', 'portfolio'])
          yield { entityId: 'cus-1', record: { Id: 'cus-1', entityType }, connectionId };
      },
    };
    expect(await service.resync(target.id, ['customer'], source)).toBe(2);
    await harness.drainVisible();
    const bodies = receiver.log.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.source).sort()).toEqual(['connector/hotel', 'connector/portfolio']);
    expect(new Set(receiver.log.map((r) => r.headers['webhook-id'])).size).toBe(2);
    expect(new Set(bodies.map((b) => b.id)).size).toBe(2);
  });

  it("sends a resync snapshot with its data in a detected event's order, its content unchanged", async () => {
    // Before, the resync built its data inline with change before scope, unlike every other event.
    const { receiver, harness, service, subscribe, clock } = await setup();
    const target = await subscribe('/order', { events: ['customer.*'] });
    const source = {
      async *list() {
        yield {
          entityId: 'cus-1',
          record: { Id: 'cus-1', LastName: 'Ng' },
          scope: { enterpriseId: 'e-1' },
          connectionId: 'main',
        };
        yield { entityId: 'cus-2', record: { Id: 'cus-2' } };
      },
    };
    expect(await service.resync(target.id, ['customer'], source)).toBe(2);
    await harness.drainVisible();
    const [first, second] = receiver.log.map((r) => JSON.parse(r.body));
    const detected = buildChangeEvent({
      connectionId: 'main',
      entityType: 'customer',
      entityId: 'cus-1',
      scope: {},
      detectedAt: 0,
      change: 'created',
      current: { Id: 'cus-1' },
    });
    expect(Object.keys(first.data)).toEqual(Object.keys(detected.data));
    expect(Object.keys(first)).toEqual(Object.keys(detected));
    const time = new Date(clock.now()).toISOString();
    expect(first).toEqual({
      specversion: '1.0',
      id: first.id,
      type: 'customer.snapshot',
      source: 'connector/main',
      subject: 'cus-1',
      time,
      datacontenttype: 'application/json',
      data: {
        entityType: 'customer',
        entityId: 'cus-1',
        scope: { enterpriseId: 'e-1' },
        change: 'snapshot',
        current: { Id: 'cus-1', LastName: 'Ng' },
        previous: null,
        changedFields: [],
        patch: [],
      },
    });
    expect(first.id).toBe(
      hashEventId(['snapshot/v2', target.id, 'main', 'customer', 'cus-1', time]),
    );
    expect(second).toMatchObject({ source: 'change-bridge', data: { scope: {} } });
    expect(second.id).toBe(hashEventId(['snapshot/v2', target.id, '', 'customer', 'cus-2', time]));
  });

  it('sends a ping to one subscription only', async () => {
    const { receiver, harness, service, subscribe } = await setup();
    const sub = await subscribe('/ping');
    await subscribe('/quiet');
    const delivery = await service.ping(sub.id);
    await harness.drainVisible();
    expect(receiver.log.map((r) => r.path)).toEqual(['/ping']);
    expect(JSON.parse(receiver.log[0]!.body)).toMatchObject({
      type: 'ping',
      source: 'change-bridge',
      subject: sub.id,
    });
    expect(receiver.log[0]?.headers['webhook-id']).toBe(delivery.eventId);
    expect(receiver.log[0]?.verifiedWith).toBe(1);
  });

  it('delivers a ping at once while an earlier ping to the same subscription waits for its retry (pings keep no order)', async () => {
    let requests = 0;
    const { receiver, harness, service, subscribe } = await setup(() => ({
      kind: 'respond',
      status: requests++ === 0 ? 500 : 204,
    }));
    const sub = await subscribe('/ping', { retrySchedule: [3_600] });
    const first = await service.ping(sub.id);
    await harness.drainVisible();
    // A second ping in another millisecond (a ping's id is made of its time).
    await (harness.clock as ManualClock).advance(1_000);
    const second = await service.ping(sub.id);
    await harness.drainVisible();
    // The first failed and waits an hour for its retry; the second is not held behind it.
    expect(receiver.log.map((r) => r.headers['webhook-id'])).toEqual([
      first.eventId,
      second.eventId,
    ]);
    expect((await service.listDeliveries({ eventId: second.eventId }))[0]?.delivery.status).toBe(
      'delivered',
    );
  });

  it('replays to a named subscription an event it was sent before, though its filters take no such type (a ping)', async () => {
    const { receiver, harness, service, subscribe } = await setup();
    const sub = await subscribe('/customers', { events: ['customer.*'] });
    const ping = await service.ping(sub.id);
    await harness.drainVisible();
    await service.replayEvent(ping.eventId, sub.id);
    await harness.drainVisible();
    expect(receiver.log.map((r) => r.headers['webhook-id'])).toEqual([ping.eventId, ping.eventId]);
    // Another subscription, never sent it and not taking pings, is refused.
    const other = await subscribe('/other', { events: ['customer.*'] });
    await expect(service.replayEvent(ping.eventId, other.id)).rejects.toMatchObject({
      path: 'subscriptionId',
    });
  });
});
