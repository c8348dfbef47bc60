import { afterEach, describe, expect, it } from 'vitest';
import { encodeEventCursor } from '../../shared/webhooks/event-cursor.ts';
import { type AdminHarness, createAdminHarness, storedChangeEvent } from './support/harness.ts';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

async function withEvents(h: AdminHarness) {
  const types = ['customer.created', 'customer.updated', 'resource.updated'];
  for (const [index, type] of types.entries()) {
    const event = storedChangeEvent(`evt_${index}`, type, `e-${index}`);
    await h.store.putEvent({
      id: event.id,
      type,
      storedAt: 1000 + index,
      body: JSON.stringify(event),
    });
  }
  const response = await h.call('POST', '/subscriptions', {
    body: { url: 'http://127.0.0.1:9000/hook', events: 'customer.*' },
  });
  return (response.body as { id: string }).id;
}

describe('admin API: events and deliveries', () => {
  it('lists events newest first, by type and up to a limit', async () => {
    harness = createAdminHarness();
    await withEvents(harness);

    const all = await harness.call('GET', '/events');
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      events: [
        { id: 'evt_2', type: 'resource.updated', storedAt: new Date(1002).toISOString() },
        { id: 'evt_1', type: 'customer.updated', storedAt: new Date(1001).toISOString() },
        { id: 'evt_0', type: 'customer.created', storedAt: new Date(1000).toISOString() },
      ],
    });
    const typed = await harness.call('GET', '/events', { query: { type: 'customer.updated' } });
    expect(typed.body).toMatchObject({ events: [{ id: 'evt_1' }] });
    const limited = await harness.call('GET', '/events', { query: { limit: '1' } });
    expect((limited.body as { events: unknown[] }).events).toHaveLength(1);
  });

  it('pages past a full page with nextCursor, each event once, and refuses a made-up cursor', async () => {
    harness = createAdminHarness();
    await withEvents(harness);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page += 1) {
      const response = await harness.call('GET', '/events', {
        query: { limit: '2', ...(cursor ? { cursor } : {}) },
      });
      expect(response.status).toBe(200);
      const body = response.body as { events: { id: string }[]; nextCursor?: string };
      seen.push(...body.events.map((event) => event.id));
      cursor = body.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(['evt_2', 'evt_1', 'evt_0']);
    const bad = await harness.call('GET', '/events', { query: { cursor: 'nonsense' } });
    expect(bad).toMatchObject({ status: 400, body: { field: 'cursor' } });
  });

  it('takes a well-formed cursor as a position in the list only, and refuses one at no instant', async () => {
    harness = createAdminHarness();
    await withEvents(harness);
    // A cursor names a place in the one list every caller may read: forged, it moves the page.
    const forged = encodeEventCursor({ at: 1001, id: 'evt_1' });
    const page = await harness.call('GET', '/events', { query: { cursor: forged } });
    expect(page).toMatchObject({ status: 200, body: { events: [{ id: 'evt_0' }] } });
    for (const at of [Number.MAX_SAFE_INTEGER, -5]) {
      const response = await harness.call('GET', '/events', {
        query: { cursor: encodeEventCursor({ at, id: 'evt_1' }) },
      });
      expect(response, String(at)).toMatchObject({ status: 400, body: { field: 'cursor' } });
    }
  });

  it('answers 400 naming type for a type that is not in the catalogue', async () => {
    harness = createAdminHarness();
    const response = await harness.call('GET', '/events', { query: { type: 'customer.renamed' } });
    expect(response).toMatchObject({ status: 400, body: { field: 'type' } });
  });

  it.each(['0', 'ten', '1001', '1.5'])('answers 400 naming limit for limit=%s', async (limit) => {
    harness = createAdminHarness();
    const response = await harness.call('GET', '/events', { query: { limit } });
    expect(response).toMatchObject({ status: 400, body: { field: 'limit' } });
  });

  it('shows one event exactly as stored, and 404 for an unknown id', async () => {
    harness = createAdminHarness();
    await withEvents(harness);
    const shown = await harness.call('GET', '/events/evt_1');
    expect(shown).toEqual({
      status: 200,
      body: storedChangeEvent('evt_1', 'customer.updated', 'e-1'),
    });
    expect(await harness.call('GET', '/events/evt_none')).toMatchObject({ status: 404 });
  });

  it('replays to every matching subscription, or to one named, with new deliveries', async () => {
    harness = createAdminHarness();
    const subscriptionId = await withEvents(harness);

    const matching = await harness.call('POST', '/events/evt_1/replay');
    expect(matching.status).toBe(202);
    expect(matching.body).toMatchObject({ deliveries: [{ eventId: 'evt_1', subscriptionId }] });
    const none = await harness.call('POST', '/events/evt_2/replay', { body: {} });
    expect(none.body).toEqual({ deliveries: [] });
    const named = await harness.call('POST', '/events/evt_0/replay', { body: { subscriptionId } });
    expect(named.body).toMatchObject({ deliveries: [{ eventId: 'evt_0', subscriptionId }] });
    // Named, a subscription still gets only what its filters take (customer.* here).
    const refused = await harness.call('POST', '/events/evt_2/replay', {
      body: { subscriptionId },
    });
    expect(refused).toMatchObject({ status: 400, body: { field: 'subscriptionId' } });

    expect(await harness.call('POST', '/events/evt_none/replay')).toMatchObject({ status: 404 });
    const unknownTarget = await harness.call('POST', '/events/evt_1/replay', {
      body: { subscriptionId: 'sub_none' },
    });
    expect(unknownTarget.status).toBe(404);
    const badBody = await harness.call('POST', '/events/evt_1/replay', {
      body: { subscriptionId: 7 },
    });
    expect(badBody).toMatchObject({ status: 400, body: { field: 'subscriptionId' } });
  });

  it('lists deliveries with their attempts, by subscription and by event', async () => {
    harness = createAdminHarness();
    const subscriptionId = await withEvents(harness);
    const replayed = await harness.call('POST', '/events/evt_1/replay');
    const deliveryId = (replayed.body as { deliveries: { id: string }[] }).deliveries[0]!.id;
    await harness.store.putAttempt({
      deliveryId,
      attempt: 1,
      at: harness.clock.now(),
      status: 503,
      latencyMs: 12,
      responseHeaders: {},
      responseBody: 'busy',
      outcome: 'retry',
      nextAttemptAt: harness.clock.now() + 5000,
    });

    const all = await harness.call('GET', '/deliveries');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({
      deliveries: [
        { delivery: { id: deliveryId, subscriptionId }, attempts: [{ attempt: 1, status: 503 }] },
      ],
    });
    const bySubscription = await harness.call('GET', '/deliveries', {
      query: { subscription: subscriptionId },
    });
    expect(bySubscription.body).toEqual(all.body);
    const byEvent = await harness.call('GET', '/deliveries', { query: { event: 'evt_0' } });
    expect(byEvent.body).toEqual({ deliveries: [] });
  });
});
