import { afterEach, describe, expect, it } from 'vitest';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';

const TOKEN = 'hotel-access-token-51f3';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

function add(fields: Record<string, unknown>) {
  return harness.call('POST', '/connections', {
    body: { id: 'hotel-1', accessToken: TOKEN, entities: 'customer', ...fields },
  });
}

describe('POST /connections: the interval', () => {
  it('takes an interval from 1s to 1d and refuses a longer one, naming interval', async () => {
    harness = createAdminHarness();
    expect((await add({ id: 'daily', interval: '1d' })).status).toBe(201);
    expect((await add({ id: 'every-second', interval: '1s' })).status).toBe(201);
    // 99999999d put the next due time past what a Date holds: GET /streams answered 500.
    for (const interval of ['25h', '1000d', '99999999d', '99999999999999999d']) {
      const answer = await add({ id: 'too-long', interval });
      expect(answer.status, interval).toBe(400);
      expect(answer.body, interval).toMatchObject({ field: 'interval' });
      expect((answer.body as { error: string }).error, interval).toContain('at most 1d');
    }
    expect(await harness.connections.get('too-long')).toBeUndefined();
  });
});
