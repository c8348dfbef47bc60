import type { AdminAuthentication } from './admin-deps.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { defineReadRoute } from './read-route.ts';
import type { AdminRoute } from './route.ts';
import { CONNECTION_ROUTES } from './routes-connections.ts';
import { CONNECTOR_ROUTES } from './routes-connector.ts';
import { CONSOLE_ROUTES } from './routes-console.ts';
import { EVENT_ROUTES } from './routes-events.ts';
import { STREAM_ROUTES } from './routes-streams.ts';
import { SUBSCRIPTION_ROUTES } from './routes-subscriptions.ts';
import { HealthSchema, OpenApiDocumentSchema } from './schemas.ts';

const META_ROUTES: readonly AdminRoute[] = [
  defineReadRoute({
    path: '/health',
    operationId: 'getHealth',
    summary: 'Liveness: answers while the process serves requests',
    tag: 'meta',
    schema: HealthSchema,
    read: async (_id, deps) => ({ status: 'ok', time: new Date(deps.clock.now()).toISOString() }),
  }),
  defineReadRoute({
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This API as an OpenAPI 3.1 document, generated from its zod schemas',
    tag: 'meta',
    schema: OpenApiDocumentSchema,
    read: async (_id, deps) => openApiDocument(deps.authentication),
  }),
];

/** Every route of the admin API, in the order the OpenAPI document lists them. */
export const ADMIN_ROUTES: readonly AdminRoute[] = [
  ...SUBSCRIPTION_ROUTES,
  ...EVENT_ROUTES,
  ...STREAM_ROUTES,
  ...CONNECTION_ROUTES,
  ...CONNECTOR_ROUTES,
  ...META_ROUTES,
  ...CONSOLE_ROUTES,
];

const cachedDocuments = new Map<AdminAuthentication, Record<string, unknown>>();

/** The OpenAPI document of {@link ADMIN_ROUTES} for callers who authenticate so; generated once per process. */
export function openApiDocument(authentication: AdminAuthentication): Record<string, unknown> {
  let document = cachedDocuments.get(authentication);
  if (!document) {
    document = buildOpenApiDocument(ADMIN_ROUTES, authentication);
    cachedDocuments.set(authentication, document);
  }
  return document;
}
