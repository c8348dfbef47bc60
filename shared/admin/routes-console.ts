import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import {
  AnyQuerySchema,
  ConsoleAssetSchema,
  FeedQuerySchema,
  FeedSchema,
  SubscriptionHealthSchema,
} from './console-schemas.ts';
import { definedFields } from './defined-fields.ts';
import { defineReadRoute } from './read-route.ts';
import { AdminNotFoundError, type AdminRoute, defineRoute } from './route.ts';
import { EmptySchema } from './schemas.ts';

/*
 * The operator console: a page of plain ES modules and CSS in ./console/, served as they
 * are (no build step), and the two data routes it needs beyond the public ones. In a
 * Lambda bundle the folder is copied beside the bundle (infra/bridge-function.ts).
 */

const CONSOLE_DIR = new URL('./console/', import.meta.url);

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Scripts, styles and data only from this origin; nothing may frame the page. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

let assets: Map<string, string> | undefined;

/** The console's files by name, read once; only files with a known media type are served. */
function consoleAssets(): Map<string, string> {
  if (!assets) {
    const names = readdirSync(CONSOLE_DIR).filter((name) => MEDIA_TYPES[extname(name)]);
    assets = new Map(names.map((name) => [name, readFileSync(new URL(name, CONSOLE_DIR), 'utf8')]));
  }
  return assets;
}

/** The page's own file: served at `/` only (see the `/console/{id}` route). */
const CONSOLE_PAGE = 'index.html';

function serveAsset(name: string) {
  const text = consoleAssets().get(name);
  if (text === undefined) throw new AdminNotFoundError(`console asset ${name} does not exist`);
  return {
    status: 200,
    body: text,
    headers: {
      'content-type': MEDIA_TYPES[extname(name)]!,
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'referrer-policy': 'no-referrer',
    },
  };
}

/** The console page and assets, its live feed and subscription health. */
export const CONSOLE_ROUTES: readonly AdminRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/',
    operationId: 'getConsole',
    summary: 'The operator console: a web page over this API',
    tag: 'console',
    query: AnyQuerySchema,
    body: EmptySchema,
    success: { status: 200, schema: ConsoleAssetSchema, mediaType: 'text/html' },
    handle: async () => serveAsset(CONSOLE_PAGE),
  }),
  defineRoute({
    method: 'GET',
    path: '/console/{id}',
    operationId: 'getConsoleAsset',
    summary: 'A script or stylesheet of the operator console',
    tag: 'console',
    query: AnyQuerySchema,
    body: EmptySchema,
    success: { status: 200, schema: ConsoleAssetSchema, mediaType: 'text/*' },
    handle: async ({ id }) => {
      // The page links its scripts and styles relative to `/` (`console/app.js`): served from
      // here, they would resolve under /console/console/ and the page would come up bare.
      if (id === CONSOLE_PAGE)
        throw new AdminNotFoundError(`the console page is served at /, not /console/${id}`);
      return serveAsset(id);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/feed',
    operationId: 'getEventFeed',
    summary:
      'Live feed: stored events newest first with subject and time, by type pattern, subject and since',
    tag: 'events',
    query: FeedQuerySchema,
    body: EmptySchema,
    success: { status: 200, schema: FeedSchema },
    handle: async ({ query }, deps) => {
      const readAt = deps.clock.now();
      const { events, until } = await deps.webhooks.feedEvents(
        definedFields({
          sinceMs: query.since === undefined ? undefined : Date.parse(query.since),
          type: query.type,
          subject: query.subject,
          limit: query.limit,
        }),
      );
      // `now` is the `since` of the next read: never past an event listed and not stored yet,
      // which shows with its list time once its batch stores it (seconds after its sends).
      const now = new Date(Math.min(readAt, until ?? readAt)).toISOString();
      return { status: 200, body: { events, now } };
    },
  }),
  defineReadRoute({
    path: '/subscriptions/{id}/health',
    operationId: 'getSubscriptionHealth',
    summary:
      'Health of a subscription: success rate of recent attempts, last failure, pause, run of failures',
    tag: 'subscriptions',
    schema: SubscriptionHealthSchema,
    read: (id, deps) => deps.webhooks.subscriptionHealth(id),
  }),
];
