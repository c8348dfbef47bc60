import { afterEach, describe, expect, it } from 'vitest';
import {
  healthReadDue,
  PAGED_HEALTH_POLL_MS,
  readEveryHealth,
} from '../../shared/admin/console/health-pages.js';
import { SUBSCRIPTION_HEALTH_PAGE_MAX } from '../../shared/admin/console-schemas.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

/** The console's read of a path of the API, answered by the router. */
function apiOf(paths: string[]) {
  return async (path: string) => {
    paths.push(path);
    const url = new URL(path, 'http://console.test/');
    const answer = await harness.call('GET', `/${url.pathname.slice(1)}`, {
      query: Object.fromEntries(url.searchParams),
    });
    if (answer.status !== 200) throw new Error(JSON.stringify(answer.body));
    return answer.body;
  };
}

describe('the console reading GET /subscriptions/health page after page', () => {
  it('follows nextCursor to the last page: every subscription once, oldest first', async () => {
    harness = createAdminHarness();
    const count = SUBSCRIPTION_HEALTH_PAGE_MAX + 3;
    for (let n = 0; n < count; n++) {
      const createdAt = new Date(Date.UTC(2026, 0, 1) + n).toISOString();
      await harness.store.putSubscription({
        id: `sub_${String(count - n).padStart(4, '0')}`,
        url: 'http://127.0.0.1:9/hook',
        events: ['*'],
        enabled: true,
        createdAt,
        updatedAt: createdAt,
        secret: 'whsec_c2VjcmV0',
      });
    }
    const paths: string[] = [];

    const read = await readEveryHealth(apiOf(paths));

    expect(read.pages).toBe(2);
    expect(paths[0]).toBe('subscriptions/health');
    expect(paths[1]).toMatch(/^subscriptions\/health\?cursor=/);
    expect(read.health.map((h: { subscriptionId: string }) => h.subscriptionId)).toEqual(
      Array.from({ length: count }, (_, n) => `sub_${String(count - n).padStart(4, '0')}`),
    );
  });

  it('reads once when every subscription fits one answer', async () => {
    harness = createAdminHarness();
    const paths: string[] = [];
    expect(await readEveryHealth(apiOf(paths))).toEqual({ health: [], pages: 1 });
    expect(paths).toEqual(['subscriptions/health']);
  });
});

describe('how often the subscriptions page reads the health', () => {
  it('reads a one-page health at every refresh, one of several pages once a minute', () => {
    expect(healthReadDue(undefined, 0)).toBe(true);
    expect(healthReadDue({ pages: 1, readAtMs: 1000 }, 1001)).toBe(true);
    expect(healthReadDue({ pages: 3, readAtMs: 1000 }, 1000 + PAGED_HEALTH_POLL_MS - 1)).toBe(
      false,
    );
    expect(healthReadDue({ pages: 3, readAtMs: 1000 }, 1000 + PAGED_HEALTH_POLL_MS)).toBe(true);
  });
});
