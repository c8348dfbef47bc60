import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { OutputTail } from '../support/output-tail.ts';
import { BIN_PATH } from '../support/run-bin.ts';
import { CHROMIUM_FLAGS, findChromium } from './console-browser.ts';
import { startTestReceiver, type TestReceiver } from './webhook-receiver.ts';

const CHROMIUM = findChromium(process.env);
const SCREENSHOT_PATH = join('test-results', 'console.png');
/** Generous: two cores are shared with other test files. */
const WAIT_MS = 45_000;

if (!CHROMIUM) {
  console.warn(
    'operator console browser test skipped: no Chromium found (set CHROMIUM_PATH or apt-get install chromium)',
  );
}

async function waitForHealth(
  api: string,
  child: ChildProcess,
  headers: Record<string, string> = {},
): Promise<void> {
  const said = new OutputTail();
  said.follow(child.stderr);
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`change-bridge start exited with ${child.exitCode}: ${await said.final()}`);
    try {
      if ((await fetch(`${api}/health`, { headers })).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('change-bridge start did not answer /health');
}

/** How many ports {@link startOnFreePort} tries. */
const PORT_TRIES = 3;

/**
 * Spawns `change-bridge start --port <a port just free> ...args` and waits for its health; on
 * another port when the one it was given is in use by then (a socket of another test file,
 * a client's local port too, can take a port between `freePort` closing it and the bridge
 * listening there).
 */
async function startOnFreePort(
  args: string[],
  env: NodeJS.ProcessEnv,
  headers: Record<string, string> = {},
): Promise<{ child: ChildProcess; api: string }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const api = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [BIN_PATH, 'start', '--port', String(port), ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      await waitForHealth(api, child, headers);
      return { child, api };
    } catch (error) {
      child.kill('SIGKILL');
      if (attempt === PORT_TRIES || !String(error).includes(`:${port} is in use`)) throw error;
    }
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!CHROMIUM)('operator console in Chromium against change-bridge start', () => {
  let child: ChildProcess;
  let receiver: TestReceiver;
  let dataDir: string;
  let profileDir: string;
  let browser: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  const writes: { url: string; headers: Record<string, string> }[] = [];
  let api = '';

  beforeAll(async () => {
    receiver = await startTestReceiver();
    dataDir = await mkdtemp(join(tmpdir(), 'bridge-console-'));
    profileDir = await mkdtemp(join(tmpdir(), 'bridge-chromium-'));
    const { CONNECTOR_BASE_URL: _external, BRIDGE_ADMIN_TOKEN: _token, ...env } = process.env;
    ({ child, api } = await startOnFreePort(
      ['--data-dir', dataDir, '--poll-interval', '1s'],
      // A first sync of 30 days, not the default 5 years: the feed's first live events come
      // seconds sooner (the years' windows spend the connector budget first).
      { ...env, POLL_HISTORY_START: '30d' },
    ));
    browser = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1280, height: 900 },
    });
    page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('request', (request) => {
      if (request.method() !== 'GET')
        writes.push({ url: request.url(), headers: request.headers() });
    });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    child?.kill('SIGKILL');
    await receiver?.close();
    await rm(dataDir, { recursive: true, force: true });
    await rm(profileDir, { recursive: true, force: true });
  });

  it('shows the feed update, filters it, opens an event, adds a subscription, replays a delivery and runs every subscription action', async () => {
    await page.goto(`${api}/`);
    const feedRows = page.locator('#feed tbody tr[data-event-id]');
    await feedRows.first().waitFor();
    const firstSeen = await feedRows.first().getAttribute('data-event-id');
    // The simulator's activity makes new changes; the feed shows them without a reload.
    await expect
      .poll(() => feedRows.first().getAttribute('data-event-id'), { timeout: WAIT_MS })
      .not.toBe(firstSeen);
    const streamRows = page.getByRole('table', { name: 'Streams' }).locator('tbody tr');
    expect(await streamRows.count()).toBeGreaterThan(0);
    const streamsShown = await streamRows.count();

    // One connection's streams: none of an unknown one, all of `local` (this run's only one).
    await page.getByLabel('Connection', { exact: true }).fill('other-hotel');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect
      .poll(() => streamRows.allTextContents(), { timeout: WAIT_MS })
      .toEqual(['No streams of connection other-hotel']);
    await page.getByLabel('Connection', { exact: true }).fill('local');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => streamRows.count(), { timeout: WAIT_MS }).toBe(streamsShown);

    // Filtered by a type pattern, the feed lists only those types.
    await page.getByLabel('Type', { exact: true }).fill('customer.*');
    await page.getByRole('button', { name: 'Filter' }).click();
    const feedTypes = () =>
      page.locator('#feed tbody tr[data-event-id] td:nth-child(2)').allTextContents();
    await expect
      .poll(
        async () => {
          const types = await feedTypes();
          return types.length > 0 && types.every((type) => type.startsWith('customer.'));
        },
        { timeout: WAIT_MS },
      )
      .toBe(true);

    // A subject found nowhere says how far the search went, not that there are no events.
    await page.getByLabel('Subject', { exact: true }).fill('no-such-entity');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect
      .poll(() => page.locator('#feed tbody tr').allTextContents(), { timeout: WAIT_MS })
      .toEqual([
        'No match among the newest 1,000 events (of the type, when it is exact): older events are not searched',
      ]);
    await page.getByLabel('Subject', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await feedRows.first().waitFor();

    // An event opens on its diff of previous to current, and its record.
    await feedRows.first().getByRole('link').click();
    await page.getByRole('table', { name: /^Changes from previous to current/ }).waitFor();
    await page.getByText(/^Record \((current|previous)/).waitFor();

    await page.getByRole('link', { name: 'Subscriptions' }).click();
    await page.getByLabel('URL', { exact: true }).fill(receiver.url);
    await page.getByLabel('Events', { exact: true }).fill('customer.*');
    await page.getByLabel('Description', { exact: true }).fill('browser test receiver');
    await page.getByRole('button', { name: 'Add subscription' }).click();
    const secret = (await page.locator('.secret-value').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    receiver.setSecret(secret);
    const row = page.getByRole('row').filter({ hasText: receiver.url });
    await row.getByRole('button', { name: 'Ping' }).click();
    await until(() => receiver.received.some((event) => event.type === 'ping'), 'the ping');

    await row.getByRole('link', { name: 'Deliveries' }).click();
    const pingId = receiver.received.find((event) => event.type === 'ping')!.webhookId;
    const pingCards = page.locator(`article.delivery[data-event-id="${pingId}"]`);
    await pingCards.first().getByRole('cell', { name: 'delivered' }).waitFor();
    await pingCards
      .first()
      .getByRole('button', { name: /^Replay/ })
      .click();

    // A replay is a new delivery of the same event: same webhook-id, verified again.
    await until(
      () => receiver.received.filter((event) => event.webhookId === pingId).length >= 2,
      'the replayed ping',
    );
    await expect.poll(() => pingCards.count(), { timeout: WAIT_MS }).toBeGreaterThanOrEqual(2);

    // The other actions of a subscription: resync, rotate the secret, disable.
    await page.getByRole('link', { name: 'Subscriptions' }).click();
    await row.getByRole('combobox').selectOption('customer');
    await row.getByRole('button', { name: 'Resync' }).click();
    await until(
      () => receiver.received.some((event) => event.type === 'customer.snapshot'),
      'a resynced customer snapshot',
    );
    // Rotating and disabling ask first.
    await row.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('heading', { name: /^New secret of / }).waitFor();
    const rotated = (await page.locator('.secret-value').textContent()) ?? '';
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await row.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disable' }).click();
    await row.getByText('disabled', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Enable' }).waitFor();
    await row.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });

    // The connection of the CONNECTOR_* variables, with where its streams stand.
    await page.getByRole('navigation').getByRole('link', { name: 'Connections' }).click();
    await page
      .getByRole('table', { name: 'Connections' })
      .getByRole('row')
      .filter({ hasText: 'CONNECTOR_*' })
      .getByText(/^\d+ streams?: \d+ /)
      .waitFor();
    // A backfill of one entity type, started here, shows its progress.
    await page.getByRole('navigation').getByRole('link', { name: 'Backfills' }).click();
    await page.getByLabel('Entity types').fill('customer');
    await page.getByRole('button', { name: 'Start backfill' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Start backfill' }).click();
    await page
      .getByRole('table', { name: 'Backfill jobs' })
      .getByText(/^1 stream: /)
      .waitFor();
    // Every request verified: a refusal says why (its signature, or a secret not set yet).
    expect(receiver.rejections).toEqual([]);
    expect(pageErrors).toEqual([]);
    // What the admin API's cross-site protections ask for: its own origin, JSON bodies.
    expect(writes.length).toBeGreaterThanOrEqual(3);
    for (const write of writes) {
      expect(new URL(write.url).origin).toBe(api);
      if (write.headers.origin) expect(write.headers.origin).toBe(api);
      expect(write.headers['content-type']).toBe('application/json');
    }

    await page.goto(`${api}/`);
    await feedRows.first().waitFor();
    await mkdir('test-results', { recursive: true });
    await page.screenshot({ path: SCREENSHOT_PATH, fullPage: true });
  }, 120_000);

  it('against a bridge started with BRIDGE_ADMIN_TOKEN, opens without it, asks for it and sends it as a bearer token', async () => {
    const token = 'console-test-token';
    const tokenDir = await mkdtemp(join(tmpdir(), 'bridge-console-token-'));
    const { CONNECTOR_BASE_URL: _external, ...env } = process.env;
    // A free port of its own: the one beside the first bridge's may be taken by another test.
    const { child: guarded, api: tokenApi } = await startOnFreePort(
      ['--data-dir', tokenDir],
      { ...env, BRIDGE_ADMIN_TOKEN: token },
      { authorization: `Bearer ${token}` },
    );
    try {
      const seen: (string | undefined)[] = [];
      page.on('request', (request) => {
        if (request.url() === `${tokenApi}/streams`) seen.push(request.headers().authorization);
      });
      await page.goto(`${tokenApi}/`);
      const dialog = page.getByRole('dialog', { name: 'Admin token' });
      await dialog.waitFor();
      await dialog.getByLabel('Token').fill(token);
      await dialog.getByRole('button', { name: 'Use token' }).click();
      await page.getByRole('table', { name: 'Streams' }).locator('tbody tr').first().waitFor();
      expect(seen[0]).toBeUndefined();
      expect(seen).toContain(`Bearer ${token}`);
      expect(await page.evaluate("sessionStorage.getItem('change-bridge.admin-token')")).toBe(
        token,
      );
    } finally {
      guarded.kill('SIGKILL');
      await rm(tokenDir, { recursive: true, force: true });
    }
  }, 90_000);
});
