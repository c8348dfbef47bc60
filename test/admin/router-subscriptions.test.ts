import { afterEach, describe, expect, it } from 'vitest';
import { activeSecrets } from '../../shared/webhooks/signing.ts';
import { SUBSCRIPTION_ID_PATTERN } from '../../shared/webhooks/subscription.ts';
import { type AdminHarness, createAdminHarness, HARNESS_START_MS } from './support/harness.ts';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

async function created(h: AdminHarness, body: Record<string, unknown> = {}) {
  const response = await h.call('POST', '/subscriptions', {
    body: { url: 'http://127.0.0.1:9000/hook', ...body },
  });
  expect(response.status).toBe(201);
  return response.body as { id: string; secret: string; events: string[]; enabled: boolean };
}

describe('admin API: subscriptions', () => {
  it('creates a subscription, returning id, url, events and a whsec_ secret once', async () => {
    harness = createAdminHarness();
    const response = await harness.call('POST', '/subscriptions', {
      body: {
        url: 'http://127.0.0.1:9000/hook',
        events: 'customer.*, resource.updated',
        description: 'CRM',
      },
    });

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      url: 'http://127.0.0.1:9000/hook',
      events: ['customer.*', 'resource.updated'],
      description: 'CRM',
      enabled: true,
    });
    const body = response.body as { id: string; secret: string };
    // Of the shape the CLI's --subscription takes.
    expect(body.id).toMatch(SUBSCRIPTION_ID_PATTERN);
    expect(body.secret).toMatch(/^whsec_/);

    const listed = await harness.call('GET', '/subscriptions');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ subscriptions: [{ id: body.id }] });
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    const shown = await harness.call('GET', `/subscriptions/${body.id}`);
    expect(shown.status).toBe(200);
    expect(JSON.stringify(shown.body)).not.toContain('whsec_');
  });

  it('defaults events to every event and accepts them as an array', async () => {
    harness = createAdminHarness();
    expect((await created(harness)).events).toEqual(['*']);
    expect((await created(harness, { events: ['customer.created'] })).events).toEqual([
      'customer.created',
    ]);
  });

  it.each([
    [{}, 'url'],
    [{ url: 'http://127.0.0.1:9000/hook', events: 'customer.*,not a type' }, 'events[1]'],
    [{ url: 'http://127.0.0.1:9000/hook', events: [] }, 'events'],
    [{ url: 'http://127.0.0.1:9000/hook', evnets: ['*'] }, 'evnets'],
    [
      { url: 'http://127.0.0.1:9000/hook', scope: { enterpriseIds: [''] } },
      'scope.enterpriseIds[0]',
    ],
    [{ url: 'not a url' }, 'url'],
    [
      { url: 'http://127.0.0.1:9000/hook', events: ['customer.*', 'Customer.Updated'] },
      'events[1]',
    ],
    [{ url: 'http://127.0.0.1:9000/hook', events: 'custmer.*' }, 'events[0]'],
  ])('answers 400 naming the field for %j', async (body, field) => {
    harness = createAdminHarness();
    const response = await harness.call('POST', '/subscriptions', { body });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ field });
    expect((response.body as { error: string }).error).toContain(field);
    expect(harness.errors).toEqual([]);
  });

  it('says what a field takes in plain words, not in zod’s', async () => {
    harness = createAdminHarness();
    const answers = await Promise.all([
      harness.call('POST', '/subscriptions', {
        body: { url: 'http://127.0.0.1:9000/hook', evnets: ['*'] },
      }),
      harness.call('POST', '/subscriptions', {
        body: { url: 'http://127.0.0.1:9000/hook', description: 'x'.repeat(2000) },
      }),
      harness.call('POST', '/subscriptions', { body: {} }),
    ]);
    expect(answers.map((a) => (a.body as { error: string }).error)).toEqual([
      'evnets: unknown field',
      expect.stringMatching(/^description: must be at most \d+ characters$/),
      'url: is required',
    ]);
  });

  it('refuses a loopback URL when private addresses are not allowed, naming url', async () => {
    harness = createAdminHarness({ allowPrivate: false });
    const response = await harness.call('POST', '/subscriptions', {
      body: { url: 'https://127.0.0.1/hook' },
    });
    expect(response).toMatchObject({ status: 400, body: { field: 'url' } });
  });

  it('updates filters and enabled state with PATCH', async () => {
    harness = createAdminHarness();
    const { id } = await created(harness);
    const response = await harness.call('PATCH', `/subscriptions/${id}`, {
      body: { events: 'customer.deleted', enabled: false },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id, events: ['customer.deleted'], enabled: false });

    const invalid = await harness.call('PATCH', `/subscriptions/${id}`, {
      body: { enabled: 'yes' },
    });
    expect(invalid).toMatchObject({ status: 400, body: { field: 'enabled' } });
  });

  it('leaves every field a PATCH does not name as it was, the event filter included', async () => {
    harness = createAdminHarness();
    const { id } = await created(harness);
    await harness.call('PATCH', `/subscriptions/${id}`, {
      body: { events: ['customer.*', '*.deleted'], retrySchedule: [1_000, 2_000] },
    });
    // As the console's pause button and a description edit send them.
    for (const body of [{ enabled: false }, { description: 'billing team' }, {}]) {
      const response = await harness.call('PATCH', `/subscriptions/${id}`, { body });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        events: ['customer.*', '*.deleted'],
        retrySchedule: [1_000, 2_000],
      });
    }
    const stored = await harness.call('GET', `/subscriptions/${id}`);
    expect(stored.body).toMatchObject({
      events: ['customer.*', '*.deleted'],
      enabled: false,
      description: 'billing team',
    });
  });

  it('removes a subscription with 204, then answers 404 for it', async () => {
    harness = createAdminHarness();
    const { id } = await created(harness);
    const removed = await harness.call('DELETE', `/subscriptions/${id}`);
    expect(removed).toEqual({ status: 204 });
    for (const [method, path] of [
      ['GET', `/subscriptions/${id}`],
      ['DELETE', `/subscriptions/${id}`],
      ['POST', `/subscriptions/${id}/rotate-secret`],
      ['POST', `/subscriptions/${id}/ping`],
    ] as const) {
      const response = await harness.call(method, path);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect((response.body as { error: string }).error).toContain(id);
    }
  });

  it('removes a subscription two requests remove at once for one of them, and answers 404 to the other', async () => {
    harness = createAdminHarness();
    const { id } = await created(harness);
    const answers = await Promise.all([
      harness.call('DELETE', `/subscriptions/${id}`),
      harness.call('DELETE', `/subscriptions/${id}`),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([204, 404]);
  });

  it('rotates the secret, returning a new one', async () => {
    harness = createAdminHarness();
    const first = await created(harness);
    const rotated = await harness.call('POST', `/subscriptions/${first.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const body = rotated.body as { id: string; secret: string };
    expect(body.id).toBe(first.id);
    expect(body.secret).toMatch(/^whsec_/);
    expect(body.secret).not.toBe(first.secret);
    const stored = await harness.store.getSubscription(first.id);
    expect(stored?.secret).toBe(body.secret);
    expect(stored?.previousSecrets?.map((entry) => entry.secret)).toEqual([first.secret]);
  });

  it('rotated twice within a day, the first secret still signs until its own 24 hours are up', async () => {
    harness = createAdminHarness();
    const first = await created(harness);
    const rotate = async () =>
      (
        (await harness.call('POST', `/subscriptions/${first.id}/rotate-secret`)).body as {
          secret: string;
        }
      ).secret;
    const second = await rotate();
    await harness.clock.advance(60 * 60 * 1000);
    const third = await rotate();
    const stored = await harness.store.getSubscription(first.id);
    if (!stored) throw new Error('the subscription is gone');
    // Before, the second rotation replaced the one earlier secret: the first stopped signing.
    expect(activeSecrets(stored, harness.clock.now())).toEqual([third, second, first.secret]);
    const firstExpiry = stored.previousSecrets?.find((e) => e.secret === first.secret)?.expiresAt;
    expect(firstExpiry).toBe(HARNESS_START_MS + 24 * 60 * 60 * 1000);
    expect(activeSecrets(stored, firstExpiry ?? 0)).toEqual([third, second]);
  });

  it('pings an enabled subscription (a queued delivery) and answers 409 for a disabled one', async () => {
    harness = createAdminHarness();
    const { id } = await created(harness);
    const ping = await harness.call('POST', `/subscriptions/${id}/ping`);
    expect(ping.status).toBe(202);
    expect(ping.body).toMatchObject({ delivery: { subscriptionId: id, status: 'pending' } });
    expect(harness.queue.size).toBe(1);

    await harness.call('PATCH', `/subscriptions/${id}`, { body: { enabled: false } });
    const refused = await harness.call('POST', `/subscriptions/${id}/ping`);
    expect(refused.status).toBe(409);
    expect((refused.body as { error: string }).error).toContain('disabled');
  });

  it('redelivers dead letters since an ISO instant and names since when it is malformed', async () => {
    harness = createAdminHarness();
    const { id } = await created(harness);
    await harness.store.putEvent({
      id: 'evt_1',
      type: 'customer.updated',
      storedAt: 1,
      body: '{}',
    });
    const dead = {
      id: 'dlv_dead',
      eventId: 'evt_1',
      subscriptionId: id,
      status: 'dead' as const,
      attempts: 8,
      nextAttemptAt: 0,
      createdAt: harness.clock.now() - 1000,
      updatedAt: harness.clock.now(),
      version: 9,
      deadAt: harness.clock.now(),
    };
    await harness.store.createDelivery(dead);
    await harness.store.addDeadLetter(dead);

    const bad = await harness.call('POST', `/subscriptions/${id}/redeliver`, {
      body: { since: 'yesterday' },
    });
    expect(bad).toMatchObject({ status: 400, body: { field: 'since' } });

    const response = await harness.call('POST', `/subscriptions/${id}/redeliver`, {
      body: { since: new Date(harness.clock.now() - 60_000).toISOString() },
    });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ deliveries: [{ eventId: 'evt_1', status: 'pending' }] });
  });

  it('resyncs stored snapshots of the asked entity types, skipping tombstones', async () => {
    harness = createAdminHarness();
    const { id } = await created(harness);
    await harness.state.putSnapshots('main:customer', [
      {
        entityId: 'c-1',
        hash: 'h1',
        record: { Id: 'c-1' },
        scope: { enterpriseId: 'e' },
        updatedAt: 1,
      },
      { entityId: 'c-2', hash: 'h2', record: { Id: 'c-2' }, updatedAt: 1 },
      { entityId: 'c-3', hash: 'h3', record: { Id: 'c-3' }, deleted: true, updatedAt: 1 },
    ]);
    await harness.state.putSnapshots('main:resource', [
      { entityId: 'r-1', hash: 'h', record: { Id: 'r-1' }, updatedAt: 1 },
    ]);

    const response = await harness.call('POST', `/subscriptions/${id}/resync`, {
      body: { entities: ['customer'] },
    });
    expect(response).toEqual({ status: 202, body: { sent: 2 } });
    const events = (await harness.store.listEvents({ limit: 10 })).events;
    expect(events.map((e) => e.type)).toEqual(['customer.snapshot', 'customer.snapshot']);
    const subjects = events.map((e) => JSON.parse(e.body).subject).sort();
    expect(subjects).toEqual(['c-1', 'c-2']);
    expect(JSON.parse(events[0]!.body).source).toBe('connector/main');

    const invalid = await harness.call('POST', `/subscriptions/${id}/resync`, {
      body: { entities: ['customer', 'guest'] },
    });
    expect(invalid).toMatchObject({ status: 400, body: { field: 'entities[1]' } });
  });

  it("resyncs only what the subscription's filters take: its entity types, its scope", async () => {
    harness = createAdminHarness();
    const { id } = await created(harness, {
      events: ['customer.updated'],
      scope: { enterpriseIds: ['hotel-a'] },
    });
    await harness.state.putSnapshots('main:customer', [
      {
        entityId: 'c-a',
        hash: 'h1',
        record: { Id: 'c-a' },
        scope: { enterpriseId: 'hotel-a' },
        updatedAt: 1,
      },
      {
        entityId: 'c-b',
        hash: 'h2',
        record: { Id: 'c-b' },
        scope: { enterpriseId: 'hotel-b' },
        updatedAt: 1,
      },
    ]);
    await harness.state.putSnapshots('main:accountNote', [
      {
        entityId: 'n-a',
        hash: 'h3',
        record: { Id: 'n-a' },
        scope: { enterpriseId: 'hotel-a' },
        updatedAt: 1,
      },
    ]);

    const response = await harness.call('POST', `/subscriptions/${id}/resync`, {
      body: { entities: ['customer'] },
    });
    expect(response).toEqual({ status: 202, body: { sent: 1 } });
    const events = (await harness.store.listEvents({ limit: 10 })).events;
    expect(events.map((e) => JSON.parse(e.body).subject)).toEqual(['c-a']);

    const refused = await harness.call('POST', `/subscriptions/${id}/resync`, {
      body: { entities: ['customer', 'accountNote'] },
    });
    expect(refused).toMatchObject({ status: 400, body: { field: 'entities[1]' } });
    expect((refused.body as { error: string }).error).toContain('takes no accountNote events');
    expect((await harness.store.listEvents({ limit: 10 })).events).toHaveLength(1);
  });
});

describe('admin API: routing', () => {
  it('answers 404 for an unknown route and 405 with allow for a wrong method', async () => {
    harness = createAdminHarness();
    expect(await harness.call('GET', '/nope')).toMatchObject({ status: 404 });
    const wrong = await harness.call('PUT', '/subscriptions');
    expect(wrong.status).toBe(405);
    expect(wrong.headers).toEqual({ allow: 'GET, HEAD, POST' });
  });

  it('lists HEAD in allow wherever GET is allowed, since HEAD is answered as GET', async () => {
    harness = createAdminHarness();
    const getOnly = await harness.call('DELETE', '/streams');
    expect(getOnly).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD' } });
    expect((getOnly.body as { error: string }).error).toContain('(allowed: GET, HEAD)');
    expect((await harness.call('HEAD', '/streams')).status).toBe(200);
    const postOnly = await harness.call('GET', '/subscriptions/sub_1/ping');
    expect(postOnly).toMatchObject({ status: 405, headers: { allow: 'POST' } });
  });

  it('answers 404 with an error for a path with a trailing slash, as for any unknown path', async () => {
    harness = createAdminHarness();
    for (const [method, path] of [
      ['GET', '/events/'],
      ['GET', '/subscriptions//'],
      ['POST', '/subscriptions/'],
      ['DELETE', '/subscriptions/'],
      ['GET', '/health/'],
    ] as const) {
      const response = await harness.call(method, path);
      expect(response, `${method} ${path}`).toMatchObject({ status: 404 });
      expect((response.body as { error: string }).error, `${method} ${path}`).toContain(path);
    }
    expect(await harness.call('GET', '/')).toMatchObject({ status: 200 });
  });

  it('answers 400 naming an unexpected body or query field on routes that take none', async () => {
    harness = createAdminHarness();
    const body = await harness.call('GET', '/streams', { query: { verbose: '1' } });
    expect(body).toMatchObject({ status: 400, body: { field: 'verbose' } });
  });

  it('answers 500 without details when a port fails, and reports the error', async () => {
    harness = createAdminHarness();
    harness.store.listSubscriptions = async () => {
      throw new Error('table SECRET-internal-name is gone');
    };
    const response = await harness.call('GET', '/subscriptions');
    expect(response).toEqual({ status: 500, body: { error: 'internal error' } });
    expect(harness.errors).toHaveLength(1);
  });
});
