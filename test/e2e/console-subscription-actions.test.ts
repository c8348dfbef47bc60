import { describe, expect, it } from 'vitest';
import { findChromium } from './console-browser.ts';
import { type FakeAnswer, startFakeConsoleApi, useConsoleBrowser } from './console-fake-api.ts';

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

function delivery(
  id: string,
  eventId: string,
  status: string,
  extra: Record<string, unknown> = {},
) {
  return {
    delivery: {
      id,
      eventId,
      subscriptionId: 'sub_1',
      status,
      attempts: 1,
      version: 1,
      createdAt: AT,
      updatedAt: AT,
      ...extra,
    },
    attempts: [],
  };
}

/**
 * A fake admin API with one subscription and its deliveries, newest first: a replay or a
 * redelivery of its dead letters adds a new pending delivery of each event sent again, as the
 * bridge does (the dead one stays dead in the log).
 */
function deadLettersApi() {
  const deliveries = [
    delivery('dlv_4', 'evt_a', 'delivered'),
    delivery('dlv_3', 'evt_b', 'dead', { deadAt: AT, deadReason: 'HTTP 500 after 8 attempts' }),
    delivery('dlv_2', 'evt_c', 'dead', { deadAt: AT, deadReason: 'subscription disabled' }),
    delivery('dlv_1', 'evt_a', 'dead', { deadAt: AT, deadReason: 'HTTP 410' }),
  ];
  let made = 4;
  const sendAgain = (eventId: string) => {
    made += 1;
    const again = delivery(`dlv_${made}`, eventId, 'pending');
    deliveries.unshift(again);
    return again.delivery;
  };
  const subscriptions = subscriptionsApi([subscription('sub_1', 'https://one.example/hook')]);
  return (method: string, path: string): FakeAnswer | undefined => {
    const url = new URL(path, 'http://fake');
    if (method === 'GET' && url.pathname === '/deliveries') {
      if (url.searchParams.get('subscription') !== 'sub_1') return { body: { deliveries: [] } };
      return { body: { deliveries } };
    }
    const replay = /^\/events\/([^/]+)\/replay$/.exec(url.pathname);
    if (method === 'POST' && replay)
      return { status: 202, body: { deliveries: [sendAgain(replay[1]!)] } };
    if (method === 'POST' && url.pathname === '/subscriptions/sub_1/redeliver') {
      // Every dead letter the bridge keeps for it, the one replayed one by one included.
      const dead = deliveries.filter((d) => d.delivery.status === 'dead');
      const again = dead.reverse().map((d) => sendAgain(d.delivery.eventId));
      return { status: 202, body: { deliveries: again } };
    }
    return subscriptions(method, path);
  };
}

/** The accessible names of the buttons and links in an ARIA snapshot, as a screen reader says them. */
function controlNames(snapshot: string): string[] {
  return [...snapshot.matchAll(/- (?:button|link) "([^"]*)"/g)].map((match) => match[1]!);
}

describe.skipIf(!CHROMIUM)('subscription actions of the console, in Chromium', () => {
  const b = useConsoleBrowser(CHROMIUM!, WAIT_MS);

  const writes = () => b.fake!.requests.filter((r) => r.method !== 'GET');

  it('removes a subscription once the operator confirms, and no longer lists it', async () => {
    b.fake = await startFakeConsoleApi(
      subscriptionsApi([
        subscription('sub_1', 'https://one.example/hook'),
        subscription('sub_2', 'https://two.example/hook'),
      ]),
    );
    await b.page.goto(`${b.fake.url}/#/subscriptions`);
    const table = b.page.getByRole('table', { name: 'Subscriptions' });
    const row = table.getByRole('row').filter({ hasText: 'one.example' });
    const dialog = b.page.getByRole('dialog');

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
    await expect.poll(() => b.page.locator('#status').textContent()).toContain('removed');
    expect(b.problems).toEqual([]);
  }, 60_000);

  it('lists the dead letters of a subscription and delivers one, then all, again', async () => {
    b.fake = await startFakeConsoleApi(deadLettersApi());
    await b.page.goto(`${b.fake.url}/#/subscriptions`);
    await b.page
      .getByRole('row')
      .filter({ hasText: 'one.example' })
      .getByRole('link', { name: 'Dead letters' })
      .click();
    await b.page.getByRole('heading', { name: /Dead letters of/ }).waitFor();
    const table = b.page.getByRole('table', { name: /Dead letters/ });
    const rows = table.locator('tbody tr');
    // evt_a was delivered since it died: not a dead letter any more.
    await rows.filter({ hasText: 'evt_b' }).waitFor();
    await expect.poll(() => rows.allTextContents()).toHaveLength(2);
    expect((await rows.allTextContents()).join(' ')).toContain('HTTP 500 after 8 attempts');
    expect((await rows.allTextContents()).join(' ')).not.toContain('evt_a');

    await table.getByRole('button', { name: 'Redeliver event evt_b' }).click();
    await rows.filter({ hasText: 'evt_b' }).waitFor({ state: 'detached' });
    expect(writes().map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/events/evt_b/replay', { subscriptionId: 'sub_1' }],
    ]);
    // A keyboard operator goes on from the next dead letter's Redeliver, not the page's top.
    await expect
      .poll(() => b.page.evaluate('document.activeElement?.getAttribute("aria-label")'))
      .toMatch(/^Redeliver event evt_c/);

    const dialog = b.page.getByRole('dialog');
    await b.page.getByRole('button', { name: /Redeliver all/ }).click();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(writes()).toHaveLength(1);
    await b.page.getByRole('button', { name: /Redeliver all/ }).click();
    await dialog.getByRole('button', { name: /Redeliver all/ }).click();
    await table.getByText('No dead letters').waitFor();
    // The dialog gives the focus back to the button that opened it, which stays.
    await expect
      .poll(() => b.page.evaluate('document.activeElement?.textContent'))
      .toBe('Redeliver all dead letters');
    const redeliver = writes()[1]!;
    expect([redeliver.method, redeliver.path]).toEqual(['POST', '/subscriptions/sub_1/redeliver']);
    expect(Date.parse((redeliver.body as { since: string }).since)).toBe(0);
    // As many as the API sent again: the one replayed before and the one delivered since too.
    await expect.poll(() => b.page.locator('#status').textContent()).toContain('3 dead letters');
    expect(b.problems).toEqual([]);
  }, 60_000);

  it("names each subscription's buttons and links after the subscription they act on, for screen readers", async () => {
    b.fake = await startFakeConsoleApi(
      subscriptionsApi([
        subscription('sub_1', 'https://one.example/hook'),
        subscription('sub_2', 'https://two.example/hook'),
      ]),
    );
    await b.page.goto(`${b.fake.url}/#/subscriptions`);
    const table = b.page.getByRole('table', { name: 'Subscriptions' });
    await table.getByRole('row').filter({ hasText: 'two.example' }).waitFor();
    const names = controlNames(await table.ariaSnapshot());
    // Ping, Rotate secret, Disable, Resync, Remove, Deliveries, Dead letters of each.
    expect(names).toHaveLength(14);
    expect(new Set(names).size).toBe(names.length);
    for (const url of ['https://one.example/hook', 'https://two.example/hook']) {
      const ofRow = controlNames(
        await table.getByRole('row').filter({ hasText: url }).ariaSnapshot(),
      );
      expect(ofRow).toHaveLength(7);
      for (const name of ofRow) expect(name).toContain(url);
    }
    // The visible word still starts the name (a voice command says what it sees).
    await table
      .getByRole('button', { name: 'Ping https://one.example/hook', exact: true })
      .waitFor();
    expect(b.problems).toEqual([]);
  }, 60_000);
});
