import { afterEach, describe, expect, it } from 'vitest';
import { createAdminApiHandler } from '../../functions/admin-api.ts';
import packageJson from '../../package.json' with { type: 'json' };
import { startAdminServer } from '../../shared/admin/node-server.ts';
import { buildOpenApiDocument } from '../../shared/admin/openapi.ts';
import { matchPath } from '../../shared/admin/router.ts';
import { ADMIN_ROUTES } from '../../shared/admin/routes.ts';
import { OPERATIONS } from '../../shared/connector/operations.ts';
import { type AdminHarness, createAdminHarness, storedChangeEvent } from './support/harness.ts';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

type Operation = {
  operationId: string;
  parameters: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
  requestBody?: {
    required: boolean;
    content: { 'application/json': { schema: Record<string, unknown> } };
  };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
};

function operation(doc: Record<string, unknown>, method: string, path: string): Operation {
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  const found = paths[path]?.[method];
  if (!found) throw new Error(`${method} ${path} is not documented`);
  return found;
}

const EXPECTED_ROUTES = [
  'get /subscriptions',
  'get /subscriptions/health',
  'post /subscriptions',
  'get /subscriptions/{id}',
  'patch /subscriptions/{id}',
  'delete /subscriptions/{id}',
  'post /subscriptions/{id}/rotate-secret',
  'post /subscriptions/{id}/ping',
  'post /subscriptions/{id}/redeliver',
  'post /subscriptions/{id}/resync',
  'get /events',
  'get /events/{id}',
  'post /events/{id}/replay',
  'get /deliveries',
  'get /streams',
  'post /streams/{id}/reset',
  'post /backfill',
  'get /backfill',
  'post /connections',
  'get /connections',
  'get /connections/{id}',
  'post /connections/{id}/disable',
  'post /connections/{id}/enable',
  'delete /connections/{id}',
  'get /backfill/{id}',
  'get /openapi.json',
  'get /health',
  'get /',
  'get /console/{id}',
  'get /feed',
  'get /subscriptions/{id}/health',
  // The connector proxy: every operation of connector-api.md under its own path.
  ...Object.values(OPERATIONS).map((spec) => `post ${spec.path}`),
];

describe('OpenAPI document', () => {
  it('is served at /openapi.json as OpenAPI 3.1 listing every route once', async () => {
    harness = createAdminHarness();
    const response = await harness.call('GET', '/openapi.json');
    expect(response.status).toBe(200);
    const doc = JSON.parse(JSON.stringify(response.body));
    expect(doc).toEqual(buildOpenApiDocument(ADMIN_ROUTES, 'none'));
    expect(doc.openapi).toBe('3.1.0');
    // The API's version is the release's: one a receiver of the document can match to a changelog.
    expect(doc.info.version).toBe(packageJson.version);
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`),
    );
    expect(documented.sort()).toEqual([...EXPECTED_ROUTES].sort());
    const ids = documented.map((key) => {
      const [method, path] = key.split(' ');
      return operation(doc, method!, path!).operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('carries the request schemas generated from zod: body fields, required ones, query parameters', () => {
    const doc = buildOpenApiDocument(ADMIN_ROUTES, 'bearer');
    const create = operation(doc, 'post', '/subscriptions');
    const body = create.requestBody!.content['application/json'].schema;
    expect(create.requestBody!.required).toBe(true);
    expect(body.required).toEqual(['url']);
    expect(Object.keys(body.properties as object)).toEqual(
      expect.arrayContaining(['url', 'events', 'scope', 'changedFields', 'description']),
    );
    expect(body.additionalProperties).toBe(false);

    const events = operation(doc, 'get', '/events');
    expect(events.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['type', 'query', false],
      ['limit', 'query', false],
      ['cursor', 'query', false],
    ]);
    expect(events.parameters[1]!.schema).toMatchObject({ type: 'integer', maximum: 1000 });

    const streams = operation(doc, 'get', '/streams');
    expect(streams.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['connectionId', 'query', false],
      ['limit', 'query', false],
      ['cursor', 'query', false],
    ]);
    expect(streams.parameters[1]!.schema).toMatchObject({ type: 'integer', maximum: 4000 });
    const listed = streams.responses['200']!.content!['application/json']!.schema as {
      properties: Record<string, unknown>;
      required?: string[];
    };
    expect(Object.keys(listed.properties)).toEqual(['streams', 'budgets', 'nextCursor']);
    expect(listed.required).toEqual(['streams']);

    const replay = operation(doc, 'post', '/events/{id}/replay');
    expect(replay.requestBody!.required).toBe(false);
    expect(replay.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    const backfill = operation(doc, 'post', '/backfill');
    const entities = (
      backfill.requestBody!.content['application/json'].schema.properties as Record<string, object>
    ).entities;
    expect(JSON.stringify(entities)).toContain('taxEnvironment');
  });

  it('says what text POST /connections takes as interval: a duration from 1s to 1d', () => {
    const doc = buildOpenApiDocument(ADMIN_ROUTES, 'bearer');
    const body = operation(doc, 'post', '/connections').requestBody!.content['application/json']
      .schema as { properties: Record<string, { type?: string; description?: string }> };
    expect(body.properties.interval).toMatchObject({ type: 'string' });
    expect(body.properties.interval!.description).toMatch(/1m/);
    expect(body.properties.interval!.description).toMatch(/1s.*1d/);
  });

  it('documents a JSON response schema for every success with a body, and errors by reference', () => {
    const doc = buildOpenApiDocument(ADMIN_ROUTES, 'bearer');
    for (const route of ADMIN_ROUTES) {
      const op = operation(doc, route.method.toLowerCase(), route.path);
      const success = op.responses[String(route.success.status)]!;
      if (route.success.schema) {
        const mediaType = route.success.mediaType ?? 'application/json';
        expect(success.content![mediaType]!.schema).toBeTypeOf('object');
      } else expect(success.content).toBeUndefined();
      const error = { $ref: '#/components/schemas/Error' };
      // The connector proxy's 400 may also be the connector's own error, passed through.
      expect(op.responses['400']!.content!['application/json']!.schema).toEqual(
        route.tag === 'connector'
          ? { anyOf: [error, { $ref: '#/components/schemas/ConnectorError' }] }
          : error,
      );
    }
    expect((doc.components as { schemas: { Error: object } }).schemas.Error).toMatchObject({
      required: ['error'],
    });
  });

  it('lists 409 only on the routes that answer it, and no format JSON Schema does not define', () => {
    const doc = buildOpenApiDocument(ADMIN_ROUTES, 'bearer');
    const with409 = ADMIN_ROUTES.filter(
      (route) => operation(doc, route.method.toLowerCase(), route.path).responses['409'],
    ).map((route) => route.operationId);
    // Every connector proxy route: the connection it names may be disabled.
    const connector = ADMIN_ROUTES.filter((route) => route.tag === 'connector').map(
      (route) => route.operationId,
    );
    expect(connector).toContain('connectorRestrictionsClear');
    expect(with409.sort()).toEqual(
      [
        ...connector,
        'addConnection',
        'disableConnection',
        'enableConnection',
        'pingSubscription',
        'redeliverDeadLetters',
        'removeConnection',
        'replayEvent',
        'resyncSubscription',
        'rotateSecret',
        'updateSubscription',
      ].sort(),
    );
    const formats = [...JSON.stringify(doc).matchAll(/"format":"([^"]+)"/g)].map((m) => m[1]);
    // JSON Schema 2020-12's formats and OpenAPI's numeric ones.
    const known = new Set([
      ...['date-time', 'date', 'time', 'duration', 'email', 'hostname', 'ipv4', 'ipv6'],
      ...['uri', 'uri-reference', 'uuid', 'regex', 'int32', 'int64', 'float', 'double'],
    ]);
    expect(formats.filter((format) => !known.has(format!))).toEqual([]);
  });

  it('requires the bearer token where BRIDGE_ADMIN_TOKEN is set, none without it, and SigV4 behind API Gateway', async () => {
    harness = createAdminHarness();
    type Doc = {
      security?: Record<string, string[]>[];
      components: { securitySchemes: Record<string, Record<string, string>> };
      paths: Record<string, Record<string, Operation & { security?: unknown[] }>>;
    };
    const fetchDocument = async (token?: string): Promise<Doc> => {
      const server = await startAdminServer({ port: 0, deps: harness.deps, token });
      try {
        const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
        return (await (await fetch(`${server.url}/openapi.json`, { headers })).json()) as Doc;
      } finally {
        await server.close();
      }
    };
    const isPage = (route: { path: string }) =>
      route.path === '/' || route.path === '/console/{id}';
    // Without the token the bridge never answers 401; the connector proxy still passes on the connector's.
    const connectorOnly401 = (route: { tag: string }) =>
      route.tag === 'connector'
        ? {
            description: expect.any(String),
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/ConnectorError' } },
            },
          }
        : undefined;
    const opOf = (doc: Doc, route: (typeof ADMIN_ROUTES)[number]) =>
      doc.paths[route.path]![route.method.toLowerCase()]!;

    const withToken = await fetchDocument('s3cret-token');
    expect(withToken.components.securitySchemes.adminToken).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(withToken.security).toEqual([{ adminToken: [] }]);
    for (const route of ADMIN_ROUTES) {
      const op = opOf(withToken, route);
      // The console's page and assets hold no data: served without the token.
      expect(op.security, route.operationId).toEqual(isPage(route) ? [] : undefined);
      expect(Boolean(op.responses['401']), route.operationId).toBe(!isPage(route));
    }

    const loopback = await fetchDocument();
    expect(loopback.security).toBeUndefined();
    expect(loopback.components.securitySchemes.adminToken!.description).toMatch(
      /loopback without BRIDGE_ADMIN_TOKEN/,
    );
    for (const route of ADMIN_ROUTES) {
      const op = opOf(loopback, route);
      expect(op.security, route.operationId).toBeUndefined();
      expect(op.responses['401'], route.operationId).toEqual(connectorOnly401(route));
    }

    const lambda = createAdminApiHandler(() => harness.deps);
    const served = await lambda({
      rawPath: '/openapi.json',
      requestContext: { http: { method: 'GET' } },
    } as never);
    const aws = JSON.parse(served.body!) as Doc;
    expect(aws.security).toEqual([{ sigv4: [] }]);
    expect(aws.components.securitySchemes).toEqual({
      sigv4: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Authorization' }),
    });
    for (const route of ADMIN_ROUTES) {
      const op = opOf(aws, route);
      // IAM authorizes every route, the console's page too; of the local guard's statuses only
      // those of guardSignedRequest apply (a body not sent as JSON, a cross-site browser request).
      expect(op.security, route.operationId).toBeUndefined();
      expect(op.responses['401'], route.operationId).toEqual(connectorOnly401(route));
      expect(op.responses['413'], route.operationId).toBeUndefined();
      expect(op.responses['415'], route.operationId).toBeDefined();
      expect(JSON.stringify(op.responses['403']), route.operationId).toContain('GatewayError');
      expect(JSON.stringify(op.responses['403']), route.operationId).toContain('Sec-Fetch-Site');
    }
  });

  it('describes what the routes really answer: each success body parses with its documented schema', async () => {
    harness = createAdminHarness();
    const event = storedChangeEvent('evt_1', 'customer.updated');
    await harness.store.putEvent({
      id: 'evt_1',
      type: 'customer.updated',
      storedAt: 1,
      body: JSON.stringify(event),
    });
    const created = await harness.call('POST', '/subscriptions', {
      body: { url: 'http://127.0.0.1:8/h' },
    });
    const id = (created.body as { id: string }).id;
    const job = await harness.call('POST', '/backfill', { body: { entities: ['customer'] } });
    const jobId = (job.body as { id: string }).id;
    const requests: [string, string, unknown?][] = [
      ['GET', '/subscriptions'],
      ['GET', `/subscriptions/${id}`],
      ['PATCH', `/subscriptions/${id}`, { description: 'x' }],
      ['POST', `/subscriptions/${id}/rotate-secret`],
      ['POST', `/subscriptions/${id}/ping`],
      ['POST', `/subscriptions/${id}/redeliver`, { since: '2026-01-01T00:00:00Z' }],
      ['POST', `/subscriptions/${id}/resync`, { entities: ['customer'] }],
      ['GET', '/events'],
      ['GET', '/events/evt_1'],
      ['POST', '/events/evt_1/replay'],
      ['GET', '/deliveries'],
      ['GET', '/streams'],
      ['POST', '/streams/main:resource/reset'],
      ['GET', `/backfill/${jobId}`],
      ['GET', '/health'],
      ['GET', '/feed'],
      ['GET', `/subscriptions/${id}/health`],
      ['GET', '/'],
      ['GET', '/console/app.js'],
      ['DELETE', `/subscriptions/${id}`],
    ];
    const responses = [
      ['POST', '/subscriptions', created] as const,
      ['POST', '/backfill', job] as const,
    ];
    for (const [method, path, body] of requests) {
      responses.push([method, path, await harness.call(method, path, { body })] as never);
    }
    for (const [method, path, response] of responses) {
      const route = ADMIN_ROUTES.find(
        (r) => r.method === method && matchPath(r.path, path) !== undefined,
      )!;
      expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(
        route.success.status,
      );
      if (route.success.schema) route.success.schema.parse(response.body);
      else expect(response.body).toBeUndefined();
    }
  });
});
