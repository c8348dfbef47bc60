import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';
import { CHROMIUM_FLAGS, findChromium } from './console-browser.ts';

const CHROMIUM = findChromium(process.env);
const WAIT_MS = 30_000;

let harness: AdminHarness | undefined;
let server: AdminServer | undefined;
let browser: BrowserContext | undefined;
let profileDir: string | undefined;
afterEach(async () => {
  await browser?.close();
  await server?.close();
  await harness?.close();
  if (profileDir) await rm(profileDir, { recursive: true, force: true });
  browser = undefined;
  server = undefined;
  harness = undefined;
  profileDir = undefined;
});

describe.skipIf(!CHROMIUM)('operator console: the API link', () => {
  it('shows the OpenAPI document behind BRIDGE_ADMIN_TOKEN, with the token the operator entered', async () => {
    const token = 'api-link-token';
    harness = createAdminHarness();
    server = await startAdminServer({ port: 0, deps: harness.deps, token });
    profileDir = await mkdtemp(join(tmpdir(), 'bridge-chromium-'));
    browser = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
    });
    const page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(WAIT_MS);
    await page.goto(`${server.url}/`);
    const dialog = page.getByRole('dialog', { name: 'Admin token' });
    await dialog.waitFor();
    await dialog.getByLabel('Token').fill(token);
    await dialog.getByRole('button', { name: 'Use token' }).click();
    await page.getByRole('table', { name: 'Streams' }).waitFor();

    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'API' })
      .click();
    // The view fetches the document after the click: wait for it, not for a page load (a hash
    // change loads nothing), or a slow fetch reads as 'Loading the OpenAPI document…'.
    await page.getByText('3.1.0').first().waitFor();
    const text = (await page.locator('body').innerText()).trim();
    expect(text).not.toMatch(/needs its token/);
    expect(text).toContain('3.1.0');
    expect(text).toContain('/subscriptions');
  }, 60_000);
});
