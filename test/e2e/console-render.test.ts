import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from './console-browser.ts';
import {
  type FakeAnswer,
  type FakeConsoleApi,
  newConsolePage,
  openConsolePage,
  startFakeConsoleApi,
} from './console-fake-api.ts';

const CHROMIUM = findChromium(process.env);
const WAIT_MS = 30_000;
const AT = '2026-03-01T10:00:00.000Z';

/** Text a connector, an entity or a receiver may send: markup and script if taken as HTML. */
const HOSTILE = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>"'><b id=injected>x</b>`;

function stream(connectionId: string, entityType: string, extra: Record<string, unknown> = {}) {
  return {
    id: `${connectionId}:${entityType}`,
    connectionId,
    entityType,
    configured: true,
    strategy: 'windowed',
    watermark: AT,
    lastPollAt: AT,
    lastSuccessAt: AT,
    nextDueAt: AT,
    lagSeconds: 12,
    consecutiveFailures: 0,
    lastError: null,
    parked: false,
    parkedReason: null,
    initialSyncDone: true,
    windowInProgress: null,
    recordsRead: 0,
    eventsPublished: 0,
    recordsSetAside: 0,
    lastSetAside: null,
    backfillPass: null,
    ...extra,
  };
}

function feedEvent(index: number, extra: Record<string, unknown> = {}) {
  const storedAt = new Date(Date.parse(AT) + index * 1000).toISOString();
  return {
    id: `evt_${String(index).padStart(5, '0')}`,
    type: 'customer.updated',
    subject: `cust-${index}`,
    time: storedAt,
    storedAt,
    ...extra,
  };
}

const subscription = {
  id: 'sub_1',
  url: `javascript:window.__xss=3//${HOSTILE}`,
  events: ['*'],
  description: HOSTILE,
  enabled: false,
  disabledReason: HOSTILE,
  createdAt: AT,
  updatedAt: AT,
};

/** Answers of the fake API with hostile text in every field the page shows. */
function hostileAnswer(method: string, path: string): FakeAnswer | undefined {
  const pathname = new URL(path, 'http://fake').pathname;
  if (method !== 'GET') return { status: 500, body: { error: HOSTILE } };
  if (pathname === '/streams')
    return {
      body: {
        streams: [
          stream(HOSTILE, 'customer', {
            lastError: HOSTILE,
            consecutiveFailures: 3,
            parked: true,
            parkedReason: HOSTILE,
            strategy: HOSTILE,
            watermark: HOSTILE,
            backfillPass: { jobId: HOSTILE, watermark: AT, windowInProgress: null },
          }),
        ],
        budgets: [
          {
            connectionId: HOSTILE,
            requestsInWindow: 3,
            limit: 200,
            liveReserve: 20,
            queued: { live: 0, bulk: 0 },
            pausedUntil: null,
          },
        ],
      },
    };
  if (pathname === '/feed')
    return {
      body: { events: [feedEvent(1, { id: HOSTILE, subject: HOSTILE, type: HOSTILE })], now: AT },
    };
  if (pathname === '/subscriptions') return { body: { subscriptions: [subscription] } };
  if (pathname === '/subscriptions/health')
    return {
      body: {
        health: [
          {
            subscriptionId: 'sub_1',
            attempts: 1,
            successRate: 0,
            lastSuccessAt: null,
            lastFailureAt: AT,
            lastFailure: HOSTILE,
            pausedUntil: null,
            consecutiveFailures: 1,
            failingSince: AT,
            pending: 0,
            dead: 1,
          },
        ],
      },
    };
  if (pathname === '/deliveries')
    return {
      body: {
        deliveries: [
          {
            delivery: {
              id: HOSTILE,
              eventId: HOSTILE,
              subscriptionId: HOSTILE,
              status: 'dead',
              attempts: 1,
              version: 1,
              createdAt: AT,
              updatedAt: AT,
              deadReason: HOSTILE,
            },
            attempts: [
              {
                deliveryId: HOSTILE,
                attempt: 1,
                at: AT,
                status: 500,
                latencyMs: 12,
                responseHeaders: {},
                responseBody: HOSTILE,
                outcome: 'rejected',
              },
            ],
          },
        ],
      },
    };
  if (pathname.startsWith('/events/'))
    return {
      body: {
        id: HOSTILE,
        type: HOSTILE,
        subject: HOSTILE,
        source: HOSTILE,
        time: AT,
        data: {
          previous: { Name: HOSTILE },
          current: { Name: `${HOSTILE}!` },
          changedFields: [HOSTILE],
        },
      },
    };
  if (pathname === '/openapi.json')
    return { body: { openapi: HOSTILE, paths: { [HOSTILE]: { get: { summary: HOSTILE } } } } };
  if (pathname === '/connections')
    return {
      body: {
        connections: [
          {
            id: HOSTILE,
            enabled: true,
            createdAt: HOSTILE,
            origin: 'store',
            entities: [HOSTILE],
            error: HOSTILE,
          },
        ],
      },
    };
  if (pathname === '/backfill')
    return {
      body: {
        jobs: [
          {
            id: HOSTILE,
            startedAt: HOSTILE,
            emit: true,
            entities: [HOSTILE],
            streamCount: 1,
            connectionsNamed: false,
          },
        ],
        nextCursor: HOSTILE,
      },
    };
  if (pathname.startsWith('/backfill/'))
    return {
      body: {
        id: HOSTILE,
        startedAt: HOSTILE,
        emit: true,
        fraction: 0.5,
        done: false,
        deliveryDone: false,
        streams: [],
        recordsRead: 1,
        eventsPublished: 1,
        webhooksDelivered: 0,
        webhooksDeadLettered: 0,
        webhooksLeft: 1,
        eventsQueued: 0,
        elapsedSeconds: 1,
        finishedAt: null,
        etaSeconds: null,
      },
    };
  return undefined;
}

/** What hostile text could have made of the page: script run, elements or links it added. */
async function injected(page: Page) {
  // A string, run in the page: the test's own types know no DOM.
  return page.evaluate(`({
    xss: window.__xss ?? null,
    elements: document.querySelectorAll('main img, main script, main #injected').length,
    links: [...document.querySelectorAll('a[href]')]
      .map((a) => a.getAttribute('href') ?? '')
      .filter((href) => !href.startsWith('#')),
  })`);
}

describe.skipIf(!CHROMIUM)('operator console over a fake admin API, in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let fake: FakeConsoleApi | undefined;
  let clocked: Page | undefined;

  /**
   * A page of its own whose clock the test moves on (page.clock, installed for its whole
   * context): the console's polls, every 5 or 10 s, come when the test says instead of after
   * real seconds. Time flows as usual otherwise.
   */
  async function clockedPage(): Promise<{ page: Page; problems: string[] }> {
    const opened = await newConsolePage(browser);
    clocked = opened.page;
    opened.page.setDefaultTimeout(WAIT_MS);
    await opened.page.clock.install();
    return opened;
  }

  beforeAll(async () => {
    ({ browser, page, problems } = await openConsolePage(CHROMIUM!));
    page.setDefaultTimeout(WAIT_MS);
  }, 60_000);
  // A page left polling is navigated away first: on a loaded machine Chromium may take a while.
  afterEach(async () => {
    await page.goto('about:blank');
    await clocked?.close();
    clocked = undefined;
    await fake?.close();
    fake = undefined;
    problems.length = 0;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('shows hostile connector, entity, receiver and error text as text on every view, under its CSP', async () => {
    fake = await startFakeConsoleApi(hostileAnswer);
    await page.goto(`${fake.url}/`);
    await page.locator('#feed tbody tr[data-event-id]').first().waitFor();
    await page.getByRole('table', { name: 'Streams' }).getByText(HOSTILE).first().waitFor();
    expect(await injected(page)).toEqual({ xss: null, elements: 0, links: [] });

    await page.locator('#feed tbody tr[data-event-id] a').first().click();
    await page.getByRole('deletion').getByText(HOSTILE, { exact: true }).waitFor();
    await page.locator('article.delivery').first().waitFor();
    expect(await injected(page)).toEqual({ xss: null, elements: 0, links: [] });

    await page.goto(`${fake.url}/#/subscriptions`);
    const row = page.getByRole('row').filter({ hasText: 'javascript:' });
    await row.getByText(`Last failure`).waitFor();
    await row.getByRole('button', { name: 'Ping' }).click();
    await page.locator('#status.status-error').waitFor();
    expect(await page.locator('#status').textContent()).toContain(HOSTILE);
    expect(await injected(page)).toEqual({ xss: null, elements: 0, links: [] });

    await page.goto(`${fake.url}/#/deliveries`);
    await page.locator('article.delivery code.excerpt').waitFor();
    await page.goto(`${fake.url}/#/api`);
    await page.getByRole('table', { name: 'Operations' }).getByText(HOSTILE).first().waitFor();
    expect(await injected(page)).toEqual({ xss: null, elements: 0, links: [] });
    await page.goto(`${fake.url}/#/dead-letters?subscription=sub_1`);
    await page
      .getByRole('table', { name: /^Dead letters/ })
      .getByText(HOSTILE)
      .first()
      .waitFor();
    await page.goto(`${fake.url}/#/connections`);
    await page.getByRole('table', { name: 'Connections' }).getByText(HOSTILE).first().waitFor();
    await page.goto(`${fake.url}/#/backfills`);
    await page.getByRole('table', { name: 'Backfill jobs' }).getByText(HOSTILE).first().waitFor();
    expect(await injected(page)).toEqual({ xss: null, elements: 0, links: [] });
    expect(problems).toEqual([]);
  }, 90_000);

  it('says as many feed events as its table shows, and scrolls wide tables in their box, not the page, in a narrow window', async () => {
    // Values as long as the connector's and the API's: a record's UUID, the longest entity
    // type, a timestamp changed, a path of the API.
    const uuid = (index: number) => `${String(index).padStart(8, '0')}-2e4c-43c0-8f1c-7e3833b1bf09`;
    const type = 'resourceCategoryImageAssignment.updated';
    const events = Array.from({ length: 500 }, (_, index) =>
      feedEvent(index, { subject: uuid(index), type }),
    );
    const delivery = {
      id: 'dlv_6DQYS4K8ZC5V81YNCPKBG5XKS1',
      eventId: 'evt_00001',
      subscriptionId: 'sub_1BFQRJHEHMSZ4RZGKZMAKWBVGH',
      status: 'delivered',
      attempts: 1,
      version: 2,
      createdAt: AT,
      updatedAt: AT,
    };
    const attempt = {
      deliveryId: delivery.id,
      attempt: 1,
      at: AT,
      status: 204,
      latencyMs: 3,
      responseHeaders: {},
      responseBody: '',
      outcome: 'delivered',
    };
    fake = await startFakeConsoleApi((_method, path) => {
      const pathname = new URL(path, 'http://fake').pathname;
      if (pathname === '/streams') return { body: { streams: [] } };
      if (pathname === '/feed') return { body: { events: [...events].reverse(), now: AT } };
      if (pathname === '/deliveries')
        return { body: { deliveries: [{ delivery, attempts: [attempt] }] } };
      if (pathname === '/events/evt_00001')
        return {
          body: {
            ...events[1],
            source: 'connector/local',
            data: {
              previous: { Id: uuid(1), UpdatedUtc: '2026-12-02T15:25:21.572Z' },
              current: { Id: uuid(1), UpdatedUtc: '2026-12-02T15:29:25.140Z' },
              changedFields: ['UpdatedUtc'],
            },
          },
        };
      if (pathname === '/openapi.json') {
        const operation = { get: { summary: 'Subscriptions whose deliveries failed' } };
        return {
          body: {
            openapi: '3.1.0',
            paths: { '/subscriptions/{id}/redeliver-dead-letters': operation },
          },
        };
      }
      return undefined;
    });
    await page.goto(`${fake.url}/`);
    const rows = page.locator('#feed tbody tr[data-event-id]');
    await rows.first().waitFor();
    const said = (await page.getByText(/^\d+ events shown/).textContent()) ?? '';
    const shown = Number(/^(\d+) events shown/.exec(said)?.[1]);
    expect(await rows.count()).toBe(shown);
    expect(await rows.first().getAttribute('data-event-id')).toBe('evt_00499');

    // A phone's width: every view's tables scroll in their box, as the streams table does.
    await page.setViewportSize({ width: 420, height: 900 });
    const pageWidth = () => page.evaluate('document.documentElement.scrollWidth');
    try {
      expect(await pageWidth()).toBeLessThanOrEqual(420);
      await page.goto(`${fake.url}/#/events/evt_00001`);
      await page.getByRole('table', { name: /^Attempts of delivery/ }).waitFor();
      await page.getByRole('table', { name: /^Changes from previous/ }).waitFor();
      expect(await pageWidth()).toBeLessThanOrEqual(420);
      await page.goto(`${fake.url}/#/api`);
      await page.getByRole('table', { name: 'Operations' }).waitFor();
      expect(await pageWidth()).toBeLessThanOrEqual(420);
      await page.goto(`${fake.url}/#/backfills`);
      await page.getByRole('table', { name: 'Backfill jobs' }).waitFor();
      expect(await pageWidth()).toBeLessThanOrEqual(420);
      await page.goto(`${fake.url}/#/dead-letters?subscription=sub_1BFQRJHEHMSZ4RZGKZMAKWBVGH`);
      await page.getByRole('table', { name: /^Dead letters/ }).waitFor();
      expect(await pageWidth()).toBeLessThanOrEqual(420);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(problems).toEqual([]);
  }, 60_000);

  it('shows at most 500 of 13,000 streams at a time, parked and failing ones first, and says how many there are', async () => {
    const streams = [];
    for (let hotel = 0; hotel < 1000; hotel += 1)
      for (let type = 0; type < 13; type += 1)
        streams.push(stream(`hotel-${String(hotel).padStart(4, '0')}`, `type${type}`));
    streams[12_999] = { ...streams[12_999]!, parked: true, parkedReason: 'token refused' };
    streams[6000] = { ...streams[6000]!, consecutiveFailures: 2, lastError: 'HTTP 500' };
    const listing = { streams };
    fake = await startFakeConsoleApi((_method, path) => {
      const pathname = new URL(path, 'http://fake').pathname;
      if (pathname === '/streams') return { body: listing };
      if (pathname === '/feed') return { body: { events: [], now: AT } };
      return undefined;
    });
    await page.goto(`${fake.url}/`);
    const rows = page.getByRole('table', { name: 'Streams' }).locator('tbody tr');
    await rows.first().waitFor({ timeout: 60_000 });
    expect(await rows.count()).toBe(500);
    expect(await rows.nth(0).textContent()).toContain('hotel-0999');
    expect(await rows.nth(0).textContent()).toContain('parked: token refused');
    expect(await rows.nth(1).textContent()).toContain('HTTP 500');
    await page
      .getByText('500 of 13,000 streams shown, parked and failing ones first', { exact: false })
      .waitFor();
    expect(problems).toEqual([]);
  }, 120_000);

  it('reads 13,000 streams over the pages GET /streams answers them in, following nextCursor, and says it refreshes them once a minute', async () => {
    const streams: Record<string, unknown>[] = [];
    for (let hotel = 0; hotel < 1000; hotel += 1)
      for (let type = 0; type < 13; type += 1)
        streams.push(stream(`hotel-${String(hotel).padStart(4, '0')}`, `type${type}`));
    // Parked on the last page, failing on the second: both found past the first page.
    streams[12_999] = { ...streams[12_999]!, parked: true, parkedReason: 'token refused' };
    streams[6000] = { ...streams[6000]!, consecutiveFailures: 2, lastError: 'HTTP 500' };
    const asked: (string | null)[] = [];
    fake = await startFakeConsoleApi((_method, path) => {
      const url = new URL(path, 'http://fake');
      if (url.pathname === '/streams') {
        // Pages of 4,000, as in AWS; the cursor here is where the next page starts.
        const cursor = url.searchParams.get('cursor');
        asked.push(cursor);
        const from = Number(cursor ?? 0);
        const to = from + 4000;
        return {
          body: {
            streams: streams.slice(from, to),
            ...(to < streams.length ? { nextCursor: String(to) } : {}),
          },
        };
      }
      if (url.pathname === '/feed') return { body: { events: [], now: AT } };
      return undefined;
    });
    await page.goto(`${fake.url}/`);
    const rows = page.getByRole('table', { name: 'Streams' }).locator('tbody tr');
    await rows.first().waitFor({ timeout: 60_000 });
    expect(await rows.nth(0).textContent()).toContain('parked: token refused');
    expect(await rows.nth(1).textContent()).toContain('HTTP 500');
    await page
      .getByText(
        '500 of 13,000 streams shown, parked and failing ones first: choose a connection to see all of its streams; read in several pages, so refreshed once a minute',
        { exact: false },
      )
      .waitFor();
    expect(asked.slice(0, 4)).toEqual([null, '4000', '8000', '12000']);
    expect(problems).toEqual([]);
  }, 120_000);

  it('asks for the admin token again when the one entered cannot be sent, instead of failing every call until the tab is closed', async () => {
    fake = await startFakeConsoleApi((_method, path, authorization) => {
      if (authorization !== 'Bearer good-token')
        return { status: 401, body: { error: 'the admin API needs its token' } };
      const pathname = new URL(path, 'http://fake').pathname;
      if (pathname === '/streams') return { body: { streams: [stream('local', 'customer')] } };
      if (pathname === '/feed') return { body: { events: [], now: AT } };
      return undefined;
    });
    await page.goto(`${fake.url}/`);
    const dialog = page.getByRole('dialog', { name: 'Admin token' });
    await dialog.waitFor();
    // Pasted with a zero-width space: no header can carry it, as no BRIDGE_ADMIN_TOKEN holds it.
    await dialog.getByLabel('Token').fill('good-token\u200b');
    await dialog.getByRole('button', { name: 'Use token' }).click();
    await dialog.getByText('printable ASCII').waitFor();
    await dialog.getByLabel('Token').fill('good-token');
    await dialog.getByRole('button', { name: 'Use token' }).click();
    await page.getByRole('table', { name: 'Streams' }).getByText('customer').waitFor();
    expect(await page.evaluate("sessionStorage.getItem('change-bridge.admin-token')")).toBe(
      'good-token',
    );
    expect(problems).toEqual([]);
  }, 60_000);

  it('opens an event whose link holds a malformed escape, as typed, instead of stopping on a page error', async () => {
    fake = await startFakeConsoleApi(hostileAnswer);
    await page.goto(`${fake.url}/#/events/evt_%E0%A4%A`);
    await page.getByRole('heading', { name: 'Event evt_%E0%A4%A' }).waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  it('keeps saying how to enter the admin token after the operator cancels its prompt', async () => {
    // Each refusal numbered: the status line then shows which one it says.
    let refusals = 0;
    fake = await startFakeConsoleApi(() => {
      refusals += 1;
      return {
        status: 401,
        body: {
          error: `the admin API needs its token (BRIDGE_ADMIN_TOKEN) as a bearer token (refusal ${refusals})`,
        },
      };
    });
    const { page: timed, problems: timedProblems } = await clockedPage();
    await timed.goto(`${fake.url}/`);
    const dialog = timed.getByRole('dialog', { name: 'Admin token' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    const status = timed.locator('#status');
    const shownRefusal = async () =>
      Number(/\(refusal (\d+)\)/.exec((await status.textContent()) ?? '')?.[1] ?? 0);
    // The calls refused before the prompt ended say it; their polls' next runs are then due.
    await expect.poll(shownRefusal, { timeout: WAIT_MS }).toBeGreaterThan(0);
    const refusedBefore = refusals;
    // The polls refused after it (the streams every 5 s) say it too, not the bare 401 alone.
    await timed.clock.fastForward(6000);
    await expect.poll(shownRefusal, { timeout: WAIT_MS }).toBeGreaterThan(refusedBefore);
    expect(await status.textContent()).toContain('reload the page to enter it');
    expect(timedProblems).toEqual([]);
  }, 60_000);

  it('reads the streams once for the entity types to resync, not at every refresh of the subscriptions', async () => {
    fake = await startFakeConsoleApi(hostileAnswer);
    const { page: timed, problems: timedProblems } = await clockedPage();
    await timed.goto(`${fake.url}/#/subscriptions`);
    const row = timed.getByRole('row').filter({ hasText: 'javascript:' });
    await row.getByRole('combobox').getByRole('option', { name: 'customer' }).waitFor({
      state: 'attached',
    });
    const subscriptionReads = () =>
      fake!.requests.filter((r) => r.path === '/subscriptions').length;
    expect(subscriptionReads()).toBe(1);
    // The page reads its subscriptions every 10 s: the second read.
    await timed.clock.fastForward(10_000);
    await expect.poll(subscriptionReads, { timeout: WAIT_MS }).toBeGreaterThanOrEqual(2);
    expect(fake.requests.filter((r) => r.path.startsWith('/streams'))).toHaveLength(1);
    expect(timedProblems).toEqual([]);
  }, 60_000);

  it('says why a view could not be read where it would show, not Loading for ever', async () => {
    fake = await startFakeConsoleApi(() => ({
      status: 500,
      body: { error: 'the state store is unreachable' },
    }));
    const main = page.locator('main');
    for (const view of [
      '#/',
      '#/subscriptions',
      '#/deliveries',
      '#/connections',
      '#/backfills',
      '#/api',
    ]) {
      await page.goto(`${fake.url}/${view}`);
      await main.getByText('the state store is unreachable').first().waitFor();
      expect(await main.textContent(), view).not.toContain('Loading');
    }

    // The subscriptions read, their health not: the list shows, and the status line says why
    // the Health column is empty.
    await fake.close();
    const listed = { ...subscription, url: 'https://receiver.example/hook' };
    fake = await startFakeConsoleApi((_method, path) => {
      const pathname = new URL(path, 'http://fake').pathname;
      if (pathname === '/subscriptions') return { body: { subscriptions: [listed] } };
      if (pathname === '/streams') return { body: { streams: [] } };
      return { status: 500, body: { error: 'the state store is unreachable' } };
    });
    await page.goto(`${fake.url}/#/subscriptions`);
    await page.getByRole('row').filter({ hasText: 'receiver.example' }).waitFor();
    await expect
      .poll(() => page.locator('#status').textContent())
      .toContain('the state store is unreachable');
    expect(problems).toEqual([]);
  }, 90_000);

  it('offers no resync to a subscription that takes no event of any stream', async () => {
    fake = await startFakeConsoleApi((method, path) => {
      const pathname = new URL(path, 'http://fake').pathname;
      if (method === 'GET' && pathname === '/subscriptions')
        return {
          body: {
            subscriptions: [
              {
                ...subscription,
                id: 'sub_2',
                url: 'https://alerts.example/x',
                events: ['delivery.*'],
              },
            ],
          },
        };
      if (method === 'POST') return { status: 400, body: { error: 'entities: must not be empty' } };
      return hostileAnswer(method, path);
    });
    await page.goto(`${fake.url}/#/subscriptions`);
    const row = page.getByRole('row').filter({ hasText: 'alerts.example' });
    await row.getByRole('button', { name: 'Ping' }).waitFor();
    expect(await row.getByRole('button', { name: 'Resync' }).isDisabled()).toBe(true);
    expect(await row.getByRole('combobox').isDisabled()).toBe(true);
    expect(problems).toEqual([]);
  }, 60_000);

  it('reads the health of every subscription in one request, not one request per subscription', async () => {
    const many = Array.from({ length: 60 }, (_, i) => ({
      ...subscription,
      id: `sub_${i}`,
      url: `https://receiver-${i}.example/hook`,
      enabled: true,
      disabledReason: null,
    }));
    fake = await startFakeConsoleApi((method, path) => {
      const pathname = new URL(path, 'http://fake').pathname;
      if (pathname === '/subscriptions') return { body: { subscriptions: many } };
      if (pathname === '/subscriptions/health')
        return {
          body: {
            health: many.map((s, i) => ({
              subscriptionId: s.id,
              attempts: 10,
              successRate: i === 7 ? 0.5 : 1,
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
      return hostileAnswer(method, path);
    });
    await page.goto(`${fake.url}/#/subscriptions`);
    const row = page.getByRole('row').filter({ hasText: 'receiver-7.example' });
    await row.getByText('50% of 10 attempts', { exact: false }).waitFor();
    const healthReads = fake.requests.filter((r) => r.path.includes('/health'));
    expect(healthReads.map((r) => r.path)).toEqual(['/subscriptions/health']);
    expect(problems).toEqual([]);
  }, 60_000);

  it('reads the health of subscriptions answered in pages, following nextCursor', async () => {
    const many = Array.from({ length: 3 }, (_, i) => ({
      ...subscription,
      id: `sub_${i}`,
      url: `https://receiver-${i}.example/hook`,
      enabled: true,
      disabledReason: null,
    }));
    const healthOf = (id: string, successRate: number) => ({
      subscriptionId: id,
      attempts: 4,
      successRate,
      lastSuccessAt: AT,
      lastFailureAt: null,
      lastFailure: null,
      pausedUntil: null,
      consecutiveFailures: 0,
      failingSince: null,
      pending: 0,
      dead: 0,
    });
    fake = await startFakeConsoleApi((method, path) => {
      const url = new URL(path, 'http://fake');
      if (url.pathname === '/subscriptions') return { body: { subscriptions: many } };
      if (url.pathname === '/subscriptions/health') {
        return url.searchParams.get('cursor') === 'page 2'
          ? { body: { health: [healthOf('sub_2', 0.25)] } }
          : {
              body: { health: [healthOf('sub_0', 1), healthOf('sub_1', 1)], nextCursor: 'page 2' },
            };
      }
      return hostileAnswer(method, path);
    });
    await page.goto(`${fake.url}/#/subscriptions`);
    const row = page.getByRole('row').filter({ hasText: 'receiver-2.example' });
    await row.getByText('25% of 4 attempts', { exact: false }).waitFor();
    const healthReads = fake.requests.filter((r) => r.path.includes('/health'));
    expect(healthReads.map((r) => r.path)).toEqual([
      '/subscriptions/health',
      '/subscriptions/health?cursor=page%202',
    ]);
    expect(problems).toEqual([]);
  }, 60_000);

  it('asks before rotating a secret or disabling a subscription, and sends nothing when told no', async () => {
    const enabled = { ...subscription, url: 'https://receiver.example/hook', enabled: true };
    fake = await startFakeConsoleApi((method, path) => {
      const pathname = new URL(path, 'http://fake').pathname;
      if (method === 'GET' && pathname === '/subscriptions')
        return { body: { subscriptions: [enabled] } };
      if (method === 'POST' && pathname === '/subscriptions/sub_1/rotate-secret')
        return { body: { ...enabled, secret: 'whsec_rotated' } };
      if (method === 'PATCH' && pathname === '/subscriptions/sub_1')
        return { body: { ...enabled, enabled: false } };
      return hostileAnswer(method, path);
    });
    await page.goto(`${fake.url}/#/subscriptions`);
    const row = page.getByRole('row').filter({ hasText: 'receiver.example' });
    const writes = () => fake!.requests.filter((r) => r.method !== 'GET');
    const dialog = page.getByRole('dialog');

    await row.getByRole('button', { name: 'Rotate secret' }).click();
    await dialog.getByText('https://receiver.example/hook', { exact: false }).waitFor();
    expect(await dialog.textContent()).toContain('old secret');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row.getByRole('button', { name: 'Disable' }).click();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(writes()).toEqual([]);

    await row.getByRole('button', { name: 'Rotate secret' }).click();
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText('whsec_rotated').waitFor();
    await row.getByRole('button', { name: 'Disable' }).click();
    await dialog.getByRole('button', { name: 'Disable' }).click();
    await expect
      .poll(() => writes().map((r) => `${r.method} ${r.path}`))
      .toEqual(['POST /subscriptions/sub_1/rotate-secret', 'PATCH /subscriptions/sub_1']);
    // What the status line said of this page is not carried to the next one.
    const status = page.locator('#status');
    await expect.poll(() => status.textContent()).toContain('disabled');
    await page.getByRole('link', { name: 'Deliveries' }).first().click();
    await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
    expect(await status.textContent()).toBe('');
    expect(problems).toEqual([]);
  }, 60_000);

  it('redraws a subscription its rotation or disabling changed without waiting for the health, keeping the keyboard focus on the same action', async () => {
    let current = {
      ...subscription,
      url: 'https://receiver.example/hook',
      enabled: true,
      disabledReason: null,
    };
    // Every subscription's health takes seconds to read past a few hundred of them: here it
    // answers only once the test ends.
    let answerHealth = () => {};
    const healthHeld = new Promise<void>((resolve) => {
      answerHealth = resolve;
    });
    // The list read after the rotation is held until the test lets it go: the row is redrawn
    // while the Disable dialog is open (on a loaded machine, the read came that late by itself).
    let answerList = () => {};
    let listHeld: Promise<void> | undefined;
    fake = await startFakeConsoleApi(async (method, path) => {
      const pathname = new URL(path, 'http://fake').pathname;
      if (pathname === '/subscriptions/health') {
        await healthHeld;
        return { body: { health: [] } };
      }
      if (method === 'GET' && pathname === '/subscriptions') {
        await listHeld;
        return { body: { subscriptions: [current] } };
      }
      if (method === 'POST' && pathname === '/subscriptions/sub_1/rotate-secret') {
        current = { ...current, updatedAt: new Date().toISOString() };
        listHeld = new Promise<void>((resolve) => {
          answerList = resolve;
        });
        return { body: { ...current, secret: 'whsec_rotated' } };
      }
      if (method === 'PATCH' && pathname === '/subscriptions/sub_1') {
        current = { ...current, enabled: !current.enabled };
        return { body: current };
      }
      return hostileAnswer(method, path);
    });
    await page.goto(`${fake.url}/#/subscriptions`);
    const row = page.getByRole('row').filter({ hasText: 'receiver.example' });
    const dialog = page.getByRole('dialog');
    const focused = () => page.evaluate('document.activeElement?.textContent');
    const listReads = () => fake!.requests.filter((r) => r.path === '/subscriptions').length;

    await row.getByRole('button', { name: 'Rotate secret' }).focus();
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Rotate secret' }).press('Enter');
    await page.getByText('whsec_rotated').waitFor();
    expect(await focused()).toBe('Rotate secret');

    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Disable');
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Disable' }).waitFor();
    // The rotated row is drawn anew under the dialog: the Disable button that opened it is gone.
    await expect.poll(listReads).toBe(2);
    await row.evaluate((element) => element.setAttribute('data-drawn-before', ''));
    answerList();
    await page.locator('tr[data-drawn-before]').waitFor({ state: 'detached' });
    await dialog.getByRole('button', { name: 'Disable' }).press('Enter');
    await row.getByRole('button', { name: 'Enable' }).waitFor();
    await expect.poll(focused).toBe('Enable');
    await page.keyboard.press('Enter');
    await row.getByRole('button', { name: 'Disable' }).waitFor();
    await expect.poll(focused).toBe('Disable');
    answerHealth();
    expect(problems).toEqual([]);
  }, 60_000);
});
