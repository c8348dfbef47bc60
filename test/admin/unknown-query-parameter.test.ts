import { afterEach, describe, expect, it } from 'vitest';
import { AnyQuerySchema } from '../../shared/admin/console-schemas.ts';
import { ADMIN_ROUTES } from '../../shared/admin/routes.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

/** Routes whose query the API checks: all but the console's page and files, which take any. */
const CHECKED = ADMIN_ROUTES.filter((route) => route.query !== AnyQuerySchema);

describe('an unknown query parameter (design.md: bad input gets an error naming the field)', () => {
  it.each(CHECKED.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s answers 400 naming it, before doing anything',
    async (_name, route) => {
      harness = createAdminHarness();
      const path = route.path.replace('{id}', 'x1');
      const answer = await harness.call(route.method, path, { query: { no_such_filter: '1' } });
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body).toMatchObject({ field: 'no_such_filter' });
    },
  );

  it('a misspelt keepState on DELETE /connections/{id} deletes nothing', async () => {
    harness = createAdminHarness();
    const created = await harness.call('POST', '/connections', {
      body: { id: 'hotel-1', accessToken: 'hotel-access-token-9c1e', entities: 'customer' },
    });
    expect(created.status).toBe(201);

    const answer = await harness.call('DELETE', '/connections/hotel-1', {
      query: { 'keep-state': 'true' },
    });

    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ field: 'keep-state' });
    expect((await harness.call('GET', '/connections/hotel-1')).status).toBe(200);
  });

  it('a misspelt filter of GET /deliveries and GET /events is refused, not ignored', async () => {
    harness = createAdminHarness();
    for (const [path, name] of [
      ['/deliveries', 'subscriptionId'],
      ['/deliveries', 'eventId'],
      ['/events', 'types'],
    ] as const) {
      const answer = await harness.call('GET', path, { query: { [name]: 'sub_1' } });
      expect(answer.status, `${path}?${name}`).toBe(400);
      expect(answer.body).toMatchObject({ field: name });
    }
  });
});
