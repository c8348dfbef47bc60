import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { AdminDeps } from '../../shared/admin/admin-deps.ts';
import { CONSOLE_ROUTES } from '../../shared/admin/routes-console.ts';
import { CHROMIUM_FLAGS } from './console-browser.ts';

/** What the fake admin API answers to one request: a JSON body (or a status with `{error}`). */
export interface FakeAnswer {
  status?: number;
  body?: unknown;
}

/** A request the fake API saw, with how many were in flight when it arrived (itself included). */
export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  inFlight: number;
  /** The JSON body the page sent, parsed; undefined when it sent none. */
  body?: unknown;
}

/**
 * The operator console's real page and scripts (served by its routes, with their
 * Content-Security-Policy) over a fake admin API whose JSON the test scripts: what the page
 * makes of hostile or large answers, without a bridge.
 */
export interface FakeConsoleApi {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

async function consoleAsset(path: string) {
  const route =
    path === '/'
      ? CONSOLE_ROUTES.find((r) => r.path === '/')
      : CONSOLE_ROUTES.find((r) => r.path === '/console/{id}');
  const id = path === '/' ? '' : path.slice('/console/'.length);
  return route!.invoke({ method: 'GET', path, query: {}, body: undefined }, id, {} as AdminDeps);
}

/**
 * Starts the fake API on loopback. `answer` gets the method, path (query included) and
 * authorization header of every request that is not the page's own (or a promise of it, to hold the answer back); undefined answers 404. `delayMs` holds each data answer.
 */
export async function startFakeConsoleApi(
  answer: (
    method: string,
    path: string,
    authorization?: string,
  ) => FakeAnswer | undefined | Promise<FakeAnswer | undefined>,
  delayMs = 0,
): Promise<FakeConsoleApi> {
  const requests: SeenRequest[] = [];
  let inFlight = 0;
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    const pathname = new URL(path, 'http://fake').pathname;
    try {
      if (pathname === '/' || pathname.startsWith('/console/')) {
        const asset = await consoleAsset(pathname);
        res.writeHead(asset.status, asset.headers);
        res.end(asset.body as string);
        return;
      }
    } catch {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'no such asset' }));
      return;
    }
    inFlight += 1;
    requests.push({
      method: req.method ?? 'GET',
      path,
      authorization: req.headers.authorization,
      inFlight,
      ...(text ? { body: JSON.parse(text) } : {}),
    });
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const found = await answer(req.method ?? 'GET', path, req.headers.authorization);
    inFlight -= 1;
    const status = found?.status ?? (found ? 200 : 404);
    const body = found?.body ?? (found ? {} : { error: `no fake answer for ${path}` });
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A page of its own (its own browser context, closed with it) that records page errors,
 * Content-Security-Policy refusals and dialogs in `problems`.
 */
export async function newConsolePage(
  browser: Browser,
): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content.Security.Policy|Refused to/i.test(message.text()))
      problems.push(`csp: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { page, problems };
}

/** A headless Chromium and a page of it (see {@link newConsolePage}). */
export async function openConsolePage(
  executablePath: string,
): Promise<{ browser: Browser; page: Page; problems: string[] }> {
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
  return { browser, ...(await newConsolePage(browser)) };
}

/** The page of a block of console tests in Chromium, and the fake API of the test running. */
export interface ConsoleBrowser {
  readonly page: Page;
  /** Page errors, CSP refusals and dialogs of the test running (see {@link newConsolePage}). */
  readonly problems: string[];
  /** The test's fake admin API, closed after it. */
  fake: FakeConsoleApi | undefined;
}

/**
 * Opens a headless Chromium for the tests of the enclosing `describe` (each action waits at most
 * `waitMs`), and after each test leaves its page blank, closes its fake API and clears its
 * problems: call it at the top of the describe block.
 */
export function useConsoleBrowser(executablePath: string, waitMs: number): ConsoleBrowser {
  let opened: { browser: Browser; page: Page; problems: string[] } | undefined;
  const shared: ConsoleBrowser = {
    get page() {
      return opened!.page;
    },
    get problems() {
      return opened!.problems;
    },
    fake: undefined,
  };
  beforeAll(async () => {
    opened = await openConsolePage(executablePath);
    opened.page.setDefaultTimeout(waitMs);
  }, 60_000);
  afterEach(async () => {
    await opened?.page.goto('about:blank');
    await shared.fake?.close();
    shared.fake = undefined;
    opened?.problems.splice(0);
  }, 60_000);
  afterAll(async () => {
    await opened?.browser.close();
  });
  return shared;
}
