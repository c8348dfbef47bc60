import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from './console-browser.ts';
import {
  type FakeAnswer,
  type FakeConsoleApi,
  openConsolePage,
  startFakeConsoleApi,
} from './console-fake-api.ts';

const CHROMIUM = findChromium(process.env);
const WAIT_MS = 30_000;
const AT = '2026-03-01T10:00:00.000Z';

function subscription(id: string, url: string) {
  return {
    id,
    url,
    events: ['*'],
    description: null,
    enabled: true,
    disabledReason: null,
    createdAt: AT,
    updatedAt: AT,
  };
}

/**
 * A fake admin API holding subscriptions as the bridge does: `DELETE /subscriptions/{id}`
 * removes one (204), and the next `GET /subscriptions` lists the others.
 */
function subscriptionsApi(subscriptions: ReturnType<typeof subscription>[]) {
  return (method: string, path: string): FakeAnswer | undefined => {
    const pathname = new URL(path, 'http://fake').pathname;
    if (method === 'GET' && pathname === '/subscriptions') return { body: { subscriptions } };
    if (method === 'GET' && pathname === '/subscriptions/health') return { body: { health: [] } };
    if (method === 'GET' && pathname === '/streams') return { body: { streams: [] } };
    const removed = /^\/subscriptions\/([^/]+)$/.exec(pathname);
    if (method === 'DELETE' && removed) {
      const at = subscriptions.findIndex((s) => s.id === removed[1]);
      if (at < 0) return { status: 404, body: { error: `subscription ${removed[1]} not found` } };
      subscriptions.splice(at, 1);
      return { status: 204 };
    }
    return undefined;
  };
}

describe.skipIf(!CHROMIUM)('subscription actions of the console, in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let fake: FakeConsoleApi | undefined;

  beforeAll(async () => {
    ({ browser, page, problems } = await openConsolePage(CHROMIUM!));
    page.setDefaultTimeout(WAIT_MS);
  }, 60_000);
  afterEach(async () => {
    await page.goto('about:blank');
    await fake?.close();
    fake = undefined;
    problems.length = 0;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  const writes = () => fake!.requests.filter((r) => r.method !== 'GET');

  it('removes a subscription once the operator confirms, and no longer lists it', async () => {
    fake = await startFakeConsoleApi(
      subscriptionsApi([
        subscription('sub_1', 'https://one.example/hook'),
        subscription('sub_2', 'https://two.example/hook'),
      ]),
    );
    await page.goto(`${fake.url}/#/subscriptions`);
    const table = page.getByRole('table', { name: 'Subscriptions' });
    const row = table.getByRole('row').filter({ hasText: 'one.example' });
    const dialog = page.getByRole('dialog');

    await row.getByRole('button', { name: 'Remove' }).click();
    await dialog.getByText('https://one.example/hook', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(writes()).toEqual([]);

    await row.getByRole('button', { name: 'Remove' }).click();
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    expect(writes().map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /subscriptions/sub_1']);
    await table.getByRole('row').filter({ hasText: 'two.example' }).waitFor();
    await expect.poll(() => page.locator('#status').textContent()).toContain('removed');
    expect(problems).toEqual([]);
  }, 60_000);
});
