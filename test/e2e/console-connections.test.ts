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
/** A token a connection's answer must never carry; the page must not show it if one did. */
const TOKEN = 'E0D439EE522F44368DC78E1BFB03710C-D24FB11DBE31D4621C4817E028D9E1D';

function stream(connectionId: string, entityType: string, extra: Record<string, unknown> = {}) {
  return {
    id: `${connectionId}:${entityType}`,
    connectionId,
    entityType,
    configured: true,
    parked: false,
    parkedReason: null,
    consecutiveFailures: 0,
    lastError: null,
    initialSyncDone: true,
    ...extra,
  };
}

/** A fake admin API with two connections and their streams; DELETE removes one, as the bridge does. */
function connectionsApi(changes: { parkHotel2?: boolean } = {}) {
  const connections = [
    { id: 'local', enabled: true, createdAt: AT, origin: 'environment', accessToken: TOKEN },
    {
      id: 'hotel-2',
      enabled: true,
      createdAt: AT,
      origin: 'store',
      entities: ['customer', 'reservation'],
      intervalMs: 5000,
      accessToken: TOKEN,
    },
  ];
  let streams = [
    stream('local', 'customer'),
    stream('hotel-2', 'customer'),
    stream('hotel-2', 'reservation', { parked: true, parkedReason: 'token refused' }),
  ];
  return (method: string, path: string): FakeAnswer | undefined => {
    const url = new URL(path, 'http://fake');
    if (method === 'GET' && url.pathname === '/connections') return { body: { connections } };
    if (method === 'GET' && url.pathname === '/streams') {
      // Another stream of hotel-2 parked since: its row reads differently.
      if (changes.parkHotel2) streams = streams.map((s) => ({ ...s, parked: true }));
      return { body: { streams } };
    }
    const removed = /^\/connections\/([^/]+)$/.exec(url.pathname);
    if (method === 'DELETE' && removed) {
      const at = connections.findIndex((c) => c.id === removed[1]);
      const deleted = streams.filter((s) => s.connectionId === removed[1]).length;
      connections.splice(at, 1);
      streams = streams.filter((s) => s.connectionId !== removed[1]);
      return {
        body: { id: removed[1], removed: true, streamsDeleted: deleted, stateDeletion: 'done' },
      };
    }
    return undefined;
  };
}

describe.skipIf(!CHROMIUM)('connections view of the console, in Chromium', () => {
  const b = useConsoleBrowser(CHROMIUM!, WAIT_MS);

  it("lists the connections with their streams' state, never a token, and removes one once confirmed", async () => {
    b.fake = await startFakeConsoleApi(connectionsApi());
    await b.page.goto(`${b.fake.url}/`);
    await b.page.getByRole('navigation').getByRole('link', { name: 'Connections' }).click();
    const table = b.page.getByRole('table', { name: 'Connections' });
    const hotel = table.getByRole('row').filter({ hasText: 'hotel-2' });
    await hotel.getByText('2 streams: 1 ok, 1 parked').waitFor();
    expect(await hotel.textContent()).toContain('customer, reservation');
    const local = table.getByRole('row').filter({ hasText: 'local' });
    await local.getByText('1 stream: 1 ok').waitFor();
    expect(await b.page.locator('body').textContent()).not.toContain(TOKEN);
    // The CONNECTOR_* connection is the environment's: the API refuses its removal.
    expect(await local.getByRole('button', { name: 'Remove connection local' }).isDisabled()).toBe(
      true,
    );

    const dialog = b.page.getByRole('dialog');
    const writes = () => b.fake!.requests.filter((r) => r.method !== 'GET');
    await hotel.getByRole('button', { name: 'Remove connection hotel-2' }).click();
    await dialog.getByText('hotel-2', { exact: false }).first().waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(writes()).toEqual([]);
    await hotel.getByRole('button', { name: 'Remove connection hotel-2' }).click();
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await hotel.waitFor({ state: 'detached' });
    expect(writes().map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /connections/hotel-2']);
    await expect.poll(() => b.page.locator('#status').textContent()).toContain('2 streams deleted');
    expect(b.problems).toEqual([]);
  }, 60_000);

  let clocked: Page | undefined;
  afterEach(async () => {
    await clocked?.close();
    clocked = undefined;
  });

  it('lists the connections without their parkedStreams: the page reads the streams itself', async () => {
    b.fake = await startFakeConsoleApi(connectionsApi());
    await b.page.goto(`${b.fake.url}/#/connections`);
    await b.page.getByRole('table', { name: 'Connections' }).getByText('hotel-2').first().waitFor();

    const listings = b.fake.requests.filter((r) => r.path.startsWith('/connections'));
    expect(listings.length).toBeGreaterThan(0);
    for (const listing of listings) expect(listing.path).toBe('/connections?parkedStreams=false');
  });

  it("keeps the focus on a connection's Remove when a refresh redraws its row while the dialog is open", async () => {
    const changes = { parkHotel2: false };
    b.fake = await startFakeConsoleApi(connectionsApi(changes));
    // The page's refresh every 10 s comes when the test moves the clock on.
    const opened = await newConsolePage(b.page.context().browser()!);
    const page = opened.page;
    clocked = page;
    page.setDefaultTimeout(WAIT_MS);
    await page.clock.install();
    await page.goto(`${b.fake.url}/#/connections`);
    const row = page.getByRole('row').filter({ hasText: 'hotel-2' });
    await row.getByText('2 streams: 1 ok, 1 parked').waitFor();
    const dialog = page.getByRole('dialog');
    await row.getByRole('button', { name: 'Remove connection hotel-2' }).focus();
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Cancel' }).waitFor();
    // The refresh redraws the row under the dialog.
    changes.parkHotel2 = true;
    await row.evaluate((element) => element.setAttribute('data-drawn-before', ''));
    await page.clock.fastForward(10_000);
    await page.locator('tr[data-drawn-before]').waitFor({ state: 'detached' });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // Before: the focus fell to the page's body, the button that opened the dialog being gone.
    await expect
      .poll(() => page.evaluate('document.activeElement?.getAttribute("aria-label")'))
      .toBe('Remove connection hotel-2');
    expect(opened.problems).toEqual([]);
  }, 60_000);
});
