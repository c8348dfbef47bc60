import { afterEach, describe, expect, it } from 'vitest';
import { SUBSCRIPTION_HEALTH_PAGE_MAX } from '../../shared/admin/console-schemas.ts';
import { FEED_UNSTORED_WAIT_MS } from '../../shared/webhooks/console-admin.ts';
import type { Attempt } from '../../shared/webhooks/store.ts';
import { type AdminHarness, createAdminHarness, storedChangeEvent } from './support/harness.ts';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

async function storeEvents(h: AdminHarness, list: [string, string, string, number][]) {
  for (const [id, type, subject, storedAt] of list) {
    const event = storedChangeEvent(id, type, subject);
    await h.store.putEvent({ id, type, storedAt, body: JSON.stringify(event) });
  }
}

function attempt(deliveryId: string, n: number, fields: Partial<Attempt>): Attempt {
  return {
    deliveryId,
    attempt: n,
    at: 0,
    latencyMs: 10,
    responseHeaders: {},
    responseBody: '',
    outcome: 'delivered',
    ...fields,
  };
}

describe('admin API: the operator console', () => {
  it('serves the page at / as HTML under a same-origin content security policy', async () => {
    harness = createAdminHarness();
    const page = await harness.call('GET', '/', { query: { from: 'bookmark' } });
    expect(page.status).toBe(200);
    expect(page.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8' });
    expect(page.headers?.['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers?.['content-security-policy']).toContain("connect-src 'self'");
    expect(page.body).toContain('<script type="module" src="console/app.js">');
  });

  it('serves its scripts and styles by name, and nothing outside its folder', async () => {
    harness = createAdminHarness();
    const script = await harness.call('GET', '/console/app.js');
    expect(script).toMatchObject({
      status: 200,
      headers: { 'content-type': 'text/javascript; charset=utf-8' },
    });
    expect(script.body).toContain("from './api.js'");
    const css = await harness.call('GET', '/console/style.css');
    expect(css.headers?.['content-type']).toBe('text/css; charset=utf-8');
    for (const name of ['missing.js', '..%2Froutes.ts', '..%2F..%2Fpackage.json']) {
      expect((await harness.call('GET', `/console/${name}`)).status).toBe(404);
    }
  });

  it('serves the page at / only: under /console/ its relative links would miss its scripts', async () => {
    harness = createAdminHarness();
    const misplaced = await harness.call('GET', '/console/index.html');
    expect(misplaced).toMatchObject({ status: 404 });
    expect((misplaced.body as { error: string }).error).toContain('served at /');
    expect((await harness.call('GET', '/')).status).toBe(200);
  });

  it('lists the feed newest first with subjects, by type pattern, part of the subject and since', async () => {
    harness = createAdminHarness();
    await storeEvents(harness, [
      ['evt_a', 'customer.created', 'Cust-ABC', 1000],
      ['evt_b', 'resource.updated', 'res-1', 2000],
      ['evt_c', 'customer.updated', 'cust-xyz', 3000],
    ]);
    const all = await harness.call('GET', '/feed');
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      now: new Date(harness.clock.now()).toISOString(),
      events: [
        {
          id: 'evt_c',
          type: 'customer.updated',
          subject: 'cust-xyz',
          time: '2026-03-01T00:00:00.000Z',
          storedAt: new Date(3000).toISOString(),
        },
        expect.objectContaining({ id: 'evt_b', subject: 'res-1' }),
        expect.objectContaining({ id: 'evt_a', subject: 'Cust-ABC' }),
      ],
    });
    const ids = async (query: Record<string, string>) =>
      (
        (await harness.call('GET', '/feed', { query })).body as { events: { id: string }[] }
      ).events.map((event) => event.id);
    expect(await ids({ type: 'customer.*' })).toEqual(['evt_c', 'evt_a']);
    expect(await ids({ type: 'resource.updated' })).toEqual(['evt_b']);
    expect(await ids({ subject: 'cust-a' })).toEqual(['evt_a']);
    expect(await ids({ since: new Date(2000).toISOString() })).toEqual(['evt_c', 'evt_b']);
    expect(await ids({ limit: '1' })).toEqual(['evt_c']);
    const bad = await harness.call('GET', '/feed', { query: { since: 'yesterday' } });
    expect(bad).toMatchObject({ status: 400, body: { field: 'since' } });
    // A type no event can have is a typo to report, not an empty feed.
    for (const type of ['Bad.Type', 'custmer.*', 'customer']) {
      const unknown = await harness.call('GET', '/feed', { query: { type } });
      expect(unknown).toMatchObject({ status: 400, body: { field: 'type' } });
    }
  });

  it('gives as now no later than an event listed and not stored yet, so a read from it finds that event', async () => {
    harness = createAdminHarness();
    const at = harness.clock.now();
    const body = JSON.stringify(storedChangeEvent('evt_slow', 'customer.updated', 'cust-1'));
    const slow = { id: 'evt_slow', type: 'customer.updated', storedAt: at, body };
    // A fan-out lists its new event, then sends (a slow endpoint: 20 s) and only then stores it.
    await harness.store.indexEvents([slow]);
    await harness.clock.advance(2_000);
    const during = (await harness.call('GET', '/feed')).body as { events: unknown[]; now: string };
    expect(during.events).toEqual([]);
    expect(Date.parse(during.now)).toBeLessThanOrEqual(at);
    await harness.clock.advance(18_000);
    await harness.store.putEvent(slow, { deferListing: true });
    const after = (await harness.call('GET', '/feed', { query: { since: during.now } })).body as {
      events: { id: string }[];
      now: string;
    };
    expect(after.events.map((event) => event.id)).toEqual(['evt_slow']);
    expect(after.now).toBe(new Date(harness.clock.now()).toISOString());
  });

  it('no longer holds now back for an event listed longer ago than a batch can take, lost with its batch', async () => {
    harness = createAdminHarness();
    const body = JSON.stringify(storedChangeEvent('evt_lost', 'customer.updated', 'cust-1'));
    await harness.store.indexEvents([
      { id: 'evt_lost', type: 'customer.updated', storedAt: harness.clock.now(), body },
    ]);
    await harness.clock.advance(FEED_UNSTORED_WAIT_MS + 1);
    const feed = (await harness.call('GET', '/feed')).body as { now: string };
    expect(feed.now).toBe(new Date(harness.clock.now()).toISOString());
  });

  it('sums up a subscription health: success rate, last failure, pause and failures in a row', async () => {
    harness = createAdminHarness();
    await storeEvents(harness, [['evt_a', 'customer.created', 'c-1', 1000]]);
    const created = await harness.call('POST', '/subscriptions', {
      body: { url: 'http://127.0.0.1:8/hook' },
    });
    const id = (created.body as { id: string }).id;
    const fresh = await harness.call('GET', `/subscriptions/${id}/health`);
    expect(fresh.body).toMatchObject({ attempts: 0, successRate: null, lastFailureAt: null });

    const replayed = await harness.call('POST', '/events/evt_a/replay');
    const deliveryId = (replayed.body as { deliveries: { id: string }[] }).deliveries[0]!.id;
    const now = harness.clock.now();
    await harness.store.putAttempt(attempt(deliveryId, 1, { at: now - 3000 }));
    await harness.store.putAttempt(
      attempt(deliveryId, 2, { at: now - 2000, status: 503, outcome: 'retry' }),
    );
    await harness.store.putAttempt(
      attempt(deliveryId, 3, { at: now - 1000, error: 'timeout', outcome: 'retry' }),
    );
    await harness.store.putAttempt(attempt(deliveryId, 4, { at: now - 500 }));
    await harness.store.putEndpointState(
      {
        subscriptionId: id,
        pausedUntil: now + 60_000,
        consecutiveFailures: 2,
        failingSince: now - 2000,
        failingNotified: false,
      },
      { ifVersion: undefined },
    );

    const health = await harness.call('GET', `/subscriptions/${id}/health`);
    expect(health).toMatchObject({
      status: 200,
      body: {
        subscriptionId: id,
        attempts: 4,
        successRate: 0.5,
        lastSuccessAt: new Date(now - 500).toISOString(),
        lastFailureAt: new Date(now - 1000).toISOString(),
        lastFailure: 'timeout',
        pausedUntil: new Date(now + 60_000).toISOString(),
        consecutiveFailures: 2,
        pending: 1,
        dead: 0,
      },
    });
    expect((await harness.call('GET', '/subscriptions/sub_none/health')).status).toBe(404);
  });

  it("sums up every subscription's health in one answer, in the order subscriptions list them", async () => {
    harness = createAdminHarness();
    const ids: string[] = [];
    for (const path of ['a', 'b', 'c']) {
      const created = await harness.call('POST', '/subscriptions', {
        body: { url: `http://127.0.0.1:8/${path}` },
      });
      ids.push((created.body as { id: string }).id);
    }
    const now = harness.clock.now();
    await harness.store.putEndpointState(
      {
        subscriptionId: ids[1]!,
        pausedUntil: now + 60_000,
        consecutiveFailures: 4,
        failingSince: now - 2000,
        failingNotified: false,
      },
      { ifVersion: undefined },
    );
    const listed = (await harness.call('GET', '/subscriptions')).body as {
      subscriptions: { id: string }[];
    };

    const all = await harness.call('GET', '/subscriptions/health');
    expect(all.status).toBe(200);
    const { health } = all.body as { health: { subscriptionId: string }[] };
    expect(health.map((h) => h.subscriptionId)).toEqual(listed.subscriptions.map((s) => s.id));
    // Each is what the subscription's own health route answers.
    for (const id of ids) {
      const one = (await harness.call('GET', `/subscriptions/${id}/health`)).body;
      expect(health.find((h) => h.subscriptionId === id)).toEqual(one);
    }
    expect(health.find((h) => h.subscriptionId === ids[1])).toMatchObject({
      consecutiveFailures: 4,
      pausedUntil: new Date(now + 60_000).toISOString(),
    });
  });

  it('pages the health of the subscriptions, oldest first, each once, with the cursor each page gives', async () => {
    harness = createAdminHarness();
    // Three created in one millisecond: they keep one order (by id) from page to page.
    const created = ['2026-01-02', '2026-01-01', '2026-01-01', '2026-01-01', '2026-01-03'];
    for (const [n, day] of created.entries()) {
      await harness.store.putSubscription({
        id: `sub_${'edcba'[n]}`,
        url: `http://127.0.0.1:9/${n}`,
        events: ['*'],
        enabled: true,
        createdAt: `${day}T00:00:00.000Z`,
        updatedAt: `${day}T00:00:00.000Z`,
        secret: 'whsec_c2VjcmV0',
      });
    }
    const whole = await harness.call('GET', '/subscriptions/health');
    const every = (whole.body as { health: { subscriptionId: string }[] }).health;
    expect(every.map((h) => h.subscriptionId)).toEqual([
      'sub_b',
      'sub_c',
      'sub_d',
      'sub_e',
      'sub_a',
    ]);
    expect(whole.body).not.toHaveProperty('nextCursor');

    const pages: { health: unknown[]; nextCursor?: string }[] = [];
    let cursor: string | undefined;
    do {
      const page = await harness.call('GET', '/subscriptions/health', {
        query: { limit: '2', ...(cursor ? { cursor } : {}) },
      });
      expect(page.status).toBe(200);
      pages.push(page.body as (typeof pages)[number]);
      cursor = pages.at(-1)!.nextCursor;
    } while (cursor);
    expect(pages.map((page) => page.health.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((page) => page.health)).toEqual(every);
  });

  it(`answers ${SUBSCRIPTION_HEALTH_PAGE_MAX} subscriptions at most without a limit, and names the next page`, async () => {
    harness = createAdminHarness();
    for (let n = 0; n <= SUBSCRIPTION_HEALTH_PAGE_MAX; n++) {
      await harness.store.putSubscription({
        id: `sub_${String(n).padStart(4, '0')}`,
        url: 'http://127.0.0.1:9/hook',
        events: ['*'],
        enabled: true,
        createdAt: new Date(Date.UTC(2026, 0, 1) + n).toISOString(),
        updatedAt: new Date(Date.UTC(2026, 0, 1) + n).toISOString(),
        secret: 'whsec_c2VjcmV0',
      });
    }
    const first = (await harness.call('GET', '/subscriptions/health')).body as {
      health: unknown[];
      nextCursor?: string;
    };
    expect(first.health).toHaveLength(SUBSCRIPTION_HEALTH_PAGE_MAX);
    const rest = await harness.call('GET', '/subscriptions/health', {
      query: { cursor: first.nextCursor! },
    });
    expect(rest.body).toMatchObject({
      health: [{ subscriptionId: `sub_${String(SUBSCRIPTION_HEALTH_PAGE_MAX).padStart(4, '0')}` }],
    });
    expect(rest.body).not.toHaveProperty('nextCursor');
    const tooMany = await harness.call('GET', '/subscriptions/health', {
      query: { limit: String(SUBSCRIPTION_HEALTH_PAGE_MAX + 1) },
    });
    expect(tooMany.status).toBe(400);
  });

  it('refuses a health cursor that no page gave', async () => {
    harness = createAdminHarness();
    for (const cursor of ['nonsense', Buffer.from('yesterday|sub_1').toString('base64url')]) {
      const answer = await harness.call('GET', '/subscriptions/health', { query: { cursor } });
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body)).toContain('must be a nextCursor a previous page gave');
    }
  });

  it('answers an empty list of health when there is no subscription', async () => {
    harness = createAdminHarness();
    expect(await harness.call('GET', '/subscriptions/health')).toMatchObject({
      status: 200,
      body: { health: [] },
    });
  });
});
