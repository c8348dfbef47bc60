import { describe, expect, it } from 'vitest';
import { matchPath, PATH_ID_MAX_LENGTH } from '../../shared/admin/router.ts';
import { createAdminHarness } from './support/harness.ts';

describe('an id longer than any the bridge gives', () => {
  const long = 'a'.repeat(PATH_ID_MAX_LENGTH + 1);

  it('fits no route (the store refuses keys over 1 KB: before, a 500)', () => {
    expect(
      matchPath('/subscriptions/{id}', `/subscriptions/${'a'.repeat(PATH_ID_MAX_LENGTH)}`),
    ).toBe('a'.repeat(PATH_ID_MAX_LENGTH));
    expect(matchPath('/subscriptions/{id}', `/subscriptions/${long}`)).toBeUndefined();
  });

  it('is answered 404 on every route with an id, and 400 as a replay target', async () => {
    const harness = createAdminHarness();
    for (const [method, path] of [
      ['GET', `/subscriptions/${long}`],
      ['DELETE', `/connections/${long}`],
      ['POST', `/streams/${long}/reset`],
      ['GET', `/backfill/${long}`],
    ] as const) {
      expect((await harness.call(method, path)).status, path).toBe(404);
    }
    const replay = await harness.call('POST', '/events/evt_1/replay', {
      body: { subscriptionId: 's'.repeat(1100) },
    });
    expect(replay).toMatchObject({ status: 400, body: { field: 'subscriptionId' } });
  });

  it('is answered 400 naming the parameter as a deliveries filter (DynamoDB refuses such a Query key)', async () => {
    // dynalite answers a Query of an oversized partition key with nothing; DynamoDB refuses it
    // with a ValidationException, which answered 500 in AWS.
    const harness = createAdminHarness();
    for (const field of ['subscription', 'event']) {
      const refused = await harness.call('GET', '/deliveries', { query: { [field]: long } });
      expect(refused, field).toMatchObject({ status: 400, body: { field } });
      const fits = 'a'.repeat(PATH_ID_MAX_LENGTH);
      expect((await harness.call('GET', '/deliveries', { query: { [field]: fits } })).status).toBe(
        200,
      );
    }
  });
});
