import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { findChromium } from './console-browser.ts';
import {
  type FakeAnswer,
  newConsolePage,
  startFakeConsoleApi,
  useConsoleBrowser,
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
 * A fake admin API holding subscriptions as the bridge does: a rotation answers a new secret,
 * `DELETE /subscriptions/{id}` removes one; each has a health, answered at once.
 */
function subscriptionsApi(subscriptions: ReturnType<typeof subscription>[]) {
  return (method: string, path: string): FakeAnswer | undefined => {
    const pathname = new URL(path, 'http://fake').pathname;
    if (method === 'GET' && pathname === '/subscriptions') return { body: { subscriptions } };
    if (method === 'GET' && pathname === '/streams') return { body: { streams: [] } };
    if (method === 'GET' && pathname === '/subscriptions/health')
      return {
        body: {
          health: subscriptions.map((s) => ({
            subscriptionId: s.id,
            attempts: 3,
            successRate: 1,
            lastSuccessAt: AT,
            lastFailureAt: null,
            lastFailure: null,
            pausedUntil: null,
            consecutiveFailures: 0,
            failingSince: null,
            pending: 0,
            dead: 0,
          })),
        },
      };
    const one = /^\/subscriptions\/([^/]+)(\/rotate-secret)?$/.exec(pathname);
    const at = subscriptions.findIndex((s) => s.id === one?.[1]);
    if (!one || at < 0) return undefined;
    if (method === 'POST' && one[2]) return { body: { ...subscriptions[at], secret: 'whsec_new' } };
    if (method === 'DELETE' && !one[2]) {
      subscriptions.splice(at, 1);
      return { status: 204 };
    }
    return undefined;
  };
}

/**
 * What a screen reader calls the focused element: its aria-label, a table's caption, or its
 * text; `body` when nothing has the focus.
 */
function focusedName(page: Page) {
  return page.evaluate(`(() => {
    const active = document.activeElement;
    if (!active || active === document.body) return 'body';
    if (active.tagName === 'TABLE') return active.querySelector('caption')?.textContent;
    return active.getAttribute('aria-label') ?? active.textContent;
  })()`);
}

describe.skipIf(!CHROMIUM)("keyboard focus on a subscription's actions, in Chromium", () => {
  const b = useConsoleBrowser(CHROMIUM!, WAIT_MS);
  let clocked: Page | undefined;

  afterEach(async () => {
    await clocked?.close();
    clocked = undefined;
  });

  it('keeps the focus on Rotate secret when a refresh redraws the row while its dialog is open, confirmed or cancelled', async () => {
    const subscriptions = [subscription('sub_1', 'https://one.example/hook')];
    b.fake = await startFakeConsoleApi(subscriptionsApi(subscriptions));
    // The page's refresh every 10 s comes when the test moves the clock on.
    const opened = await newConsolePage(b.page.context().browser()!);
    clocked = opened.page;
    clocked.setDefaultTimeout(WAIT_MS);
    await clocked.clock.install();
    await clocked.goto(`${b.fake.url}/#/subscriptions`);
    const row = clocked.getByRole('row').filter({ hasText: 'one.example' });
    const dialog = clocked.getByRole('dialog');
    // The health is drawn last: the next refresh is then set.
    await row.getByText('100% of 3 attempts', { exact: false }).waitFor();

    /** Another operator changes the subscription and the refresh redraws its row under the dialog. */
    const redrawUnderDialog = async () => {
      subscriptions[0] = { ...subscriptions[0]!, updatedAt: new Date().toISOString() };
      await row.evaluate((element) => element.setAttribute('data-drawn-before', ''));
      await clocked!.clock.fastForward(10_000);
      await clocked!.locator('tr[data-drawn-before]').waitFor({ state: 'detached' });
    };

    await row.getByRole('button', { name: 'Rotate secret' }).focus();
    await clocked.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Cancel' }).waitFor();
    await redrawUnderDialog();
    await clocked.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await expect
      .poll(() => focusedName(clocked!))
      .toBe('Rotate secret of https://one.example/hook');

    await clocked.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Cancel' }).waitFor();
    await redrawUnderDialog();
    await dialog.getByRole('button', { name: 'Rotate secret' }).press('Enter');
    await clocked.getByText('whsec_new').waitFor();
    await expect
      .poll(() => focusedName(clocked!))
      .toBe('Rotate secret of https://one.example/hook');
    expect(opened.problems).toEqual([]);
  }, 60_000);

  it('moves the focus to the same action of the next row when a subscription is removed, of the one before after the last, and to the table after the only one', async () => {
    b.fake = await startFakeConsoleApi(
      subscriptionsApi([
        subscription('sub_1', 'https://one.example/hook'),
        subscription('sub_2', 'https://two.example/hook'),
        subscription('sub_3', 'https://three.example/hook'),
      ]),
    );
    const { page } = b;
    await page.goto(`${b.fake.url}/#/subscriptions`);
    const table = page.getByRole('table', { name: 'Subscriptions' });
    const dialog = page.getByRole('dialog');
    /** Removes the subscription whose Remove button has the focus, with the keyboard. */
    const removeFocused = async (url: string) => {
      await page.keyboard.press('Enter');
      await dialog.getByRole('button', { name: 'Remove' }).press('Enter');
      await table.getByRole('row').filter({ hasText: url }).waitFor({ state: 'detached' });
    };

    await page.getByRole('button', { name: 'Remove https://one.example/hook' }).focus();
    await removeFocused('one.example');
    await expect.poll(() => focusedName(page)).toBe('Remove https://two.example/hook');

    await page.getByRole('button', { name: 'Remove https://three.example/hook' }).focus();
    await removeFocused('three.example');
    await expect.poll(() => focusedName(page)).toBe('Remove https://two.example/hook');

    await removeFocused('two.example');
    await table.getByText('No subscriptions yet').waitFor();
    await expect.poll(() => focusedName(page)).toBe('Subscriptions');
    expect(b.problems).toEqual([]);
  }, 60_000);
});
