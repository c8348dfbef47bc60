import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createAdminApiHandler,
  logAdminRequestFailure,
  logUnpublishedWrite,
  readAdminApiEnv,
} from '../../functions/admin-api.ts';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import { ValidationError } from '../../shared/errors.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness;
let server: AdminServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await harness?.close();
});

/** A sample API Gateway HTTP API (payload 2.0) event, as the `$default` route delivers it. */
function apiGatewayEvent(
  method: string,
  rawPath: string,
  options: { query?: Record<string, string>; body?: string; base64?: boolean } = {},
): APIGatewayProxyEventV2 {
  const body =
    options.body === undefined
      ? undefined
      : options.base64
        ? Buffer.from(options.body).toString('base64')
        : options.body;
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: new URLSearchParams(options.query ?? {}).toString(),
    headers: {
      'content-type': 'application/json',
      host: 'abc123.execute-api.eu-west-1.amazonaws.com',
    },
    ...(options.query ? { queryStringParameters: options.query } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: {
        method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.7',
        userAgent: 'curl/8',
      },
      requestId: 'req-1',
      routeKey: '$default',
      stage: '$default',
      time: '01/Mar/2026:00:00:00 +0000',
      timeEpoch: 1_772_323_200_000,
    },
    isBase64Encoded: options.base64 ?? false,
    ...(body !== undefined ? { body } : {}),
  };
}

/** The lines the Powertools Logger printed (to either stream) while `run` ran. */
async function printed(run: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const capture = (chunk: string | Uint8Array) => {
    lines.push(
      ...String(chunk)
        .split('\n')
        .filter((line) => line !== ''),
    );
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    await run();
  } finally {
    vi.restoreAllMocks();
  }
  return lines;
}

describe('API Gateway handler (payload v2)', () => {
  it('serves the router: creates a subscription from a base64 body and lists it', async () => {
    harness = createAdminHarness();
    const handler = createAdminApiHandler(() => harness.deps);
    const created = await handler(
      apiGatewayEvent('POST', '/subscriptions', {
        body: JSON.stringify({ url: 'http://127.0.0.1:9000/hook', events: 'customer.*' }),
        base64: true,
      }),
    );
    expect(created.statusCode).toBe(201);
    expect(created.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8' });
    expect(JSON.parse(created.body!)).toMatchObject({
      events: ['customer.*'],
      secret: expect.stringMatching(/^whsec_/),
    });

    const listed = await handler(apiGatewayEvent('GET', '/events', { query: { limit: '5' } }));
    expect(listed.statusCode).toBe(200);
    expect(JSON.parse(listed.body!)).toEqual({ events: [] });
  });

  it('answers 400 naming the field for invalid JSON and for invalid query parameters', async () => {
    harness = createAdminHarness();
    const handler = createAdminApiHandler(() => harness.deps);
    const badJson = await handler(apiGatewayEvent('POST', '/subscriptions', { body: '{"url":' }));
    expect(badJson.statusCode).toBe(400);
    expect(JSON.parse(badJson.body!)).toMatchObject({ field: 'body' });
    const badLimit = await handler(apiGatewayEvent('GET', '/events', { query: { limit: 'all' } }));
    expect(JSON.parse(badLimit.body!)).toMatchObject({ field: 'limit' });
  });

  it('answers 204 with no body for a removal', async () => {
    harness = createAdminHarness();
    const handler = createAdminApiHandler(() => harness.deps);
    const created = await harness.call('POST', '/subscriptions', {
      body: { url: 'http://127.0.0.1:8/h' },
    });
    const id = (created.body as { id: string }).id;
    const removed = await handler(apiGatewayEvent('DELETE', `/subscriptions/${id}`));
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBeUndefined();
  });

  it('reads its environment with the poll settings, naming a missing variable', () => {
    const env = {
      STATE_TABLE_NAME: 'state',
      DISPATCH_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/dispatch',
      EVENT_BUS_NAME: 'bus',
      POLL_JOB_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/poll',
      CONNECTION_SECRET_ARNS: JSON.stringify({
        main: 'arn:aws:secretsmanager:eu-west-1:1:secret:main',
      }),
      POLL_ENTITIES: 'customer,resource',
      POLL_SETTLE_LAG: '10s',
    };
    const config = readAdminApiEnv(env, Date.UTC(2026, 2, 1));
    expect(config).toMatchObject({
      tableName: 'state',
      eventSource: 'change-bridge',
      allowPrivate: false,
    });
    expect(config.poll.definitions.map((d) => d.streamId)).toEqual([
      'main:customer',
      'main:resource',
    ]);
    expect(config.poll.settings.windows.settleLagMs).toBe(10_000);

    const { EVENT_BUS_NAME: _bus, ...missing } = env;
    const error = (() => {
      try {
        readAdminApiEnv(missing, 0);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe('EVENT_BUS_NAME');
  });

  it.each([
    ['an object holding a token', { accessToken: 'tok-secret-1' }, 'a thrown Object, not an Error'],
    ['undefined', undefined, 'undefined thrown, not an Error'],
  ])(
    'logs a thrown non-Error (%s) by its kind only, never field by field',
    async (_label, thrown, text) => {
      harness = createAdminHarness();
      vi.spyOn(harness.deps.webhooks, 'listSubscriptions').mockRejectedValue(thrown);
      const handler = createAdminApiHandler(() => ({
        ...harness.deps,
        onError: logAdminRequestFailure(new Logger({ serviceName: 'admin' })),
      }));
      const lines = await printed(async () => {
        const answer = await handler(apiGatewayEvent('GET', '/subscriptions'));
        expect(answer.statusCode).toBe(500);
      });
      expect(lines.join('\n')).not.toContain('tok-secret-1');
      expect(lines.map((line) => JSON.parse(line))).toMatchObject([
        { message: 'admin request failed', error: text, method: 'GET', path: '/subscriptions' },
      ]);
    },
  );

  it('logs a thrown Error and its causes without their secret-bearing fields, keeping the diagnostic ones', async () => {
    const awsFailure = Object.assign(new Error('Secrets Manager refused'), {
      name: 'AccessDeniedException',
      $fault: 'client',
      $metadata: { httpStatusCode: 403, requestId: 'req-aws-1', cfId: 'cf-unlisted-4' },
      $response: { body: 'SecretString=tok-secret-2' },
      SecretString: 'tok-secret-3',
    });
    const thrown = Object.assign(new Error('request failed', { cause: awsFailure }), {
      code: 'E_REQUEST',
      status: 502,
      request: { AccessToken: 'tok-secret-5', ClientToken: 'tok-secret-6' },
    });
    const plainCause = new Error('write failed', { cause: { ClientToken: 'tok-secret-7' } });
    const onError = logAdminRequestFailure(new Logger({ serviceName: 'admin' }));
    const onPublishError = logUnpublishedWrite(new Logger({ serviceName: 'admin' }));
    const lines = await printed(async () => {
      onError(thrown, { method: 'GET', path: '/subscriptions' });
      onPublishError(plainCause, 'customers/update');
    });
    expect(lines.join('\n')).not.toMatch(/tok-secret|cf-unlisted|\$response|SecretString/);
    const [failed, unpublished] = lines.map((line) => JSON.parse(line));
    expect(failed.error).toMatchObject({
      name: 'Error',
      message: 'request failed',
      stack: expect.stringContaining('request failed'),
      code: 'E_REQUEST',
      status: 502,
      cause: {
        name: 'AccessDeniedException',
        message: 'Secrets Manager refused',
        $fault: 'client',
        $metadata: { httpStatusCode: 403, requestId: 'req-aws-1' },
      },
    });
    expect(unpublished.error).toMatchObject({
      message: 'write failed',
      cause: 'a thrown Object, not an Error',
    });
  });

  it('logs write-through events left unpublished by a thrown non-Error by its kind only', async () => {
    const log = logUnpublishedWrite(new Logger({ serviceName: 'admin' }));
    const lines = await printed(async () => {
      log({ accessToken: 'tok-secret-1' }, 'customers/update');
      log(undefined, 'customers/update');
    });
    expect(lines.join('\n')).not.toContain('tok-secret-1');
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([
      { error: 'a thrown Object, not an Error', operation: 'customers/update' },
      { error: 'undefined thrown, not an Error', operation: 'customers/update' },
    ]);
  });
});

describe('node:http admin server', () => {
  it('serves JSON on 127.0.0.1 with the router status codes', async () => {
    harness = createAdminHarness();
    server = await startAdminServer({ port: 0, deps: harness.deps });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await health.json()).toEqual({ status: 'ok', time: '2026-03-01T00:00:00.000Z' });

    const created = await fetch(`${server.url}/subscriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9000/hook' }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const removed = await fetch(`${server.url}/subscriptions/${id}`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe('');

    const bad = await fetch(`${server.url}/backfill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'not json',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ field: 'body' });

    const query = await fetch(`${server.url}/events?limit=0`);
    expect(await query.json()).toMatchObject({ field: 'limit' });
    // Plain digits only: not a number JavaScript would read (1e2 = 100, 0x10 = 16).
    for (const limit of ['1e2', '0x10', '%205'])
      expect(await (await fetch(`${server.url}/events?limit=${limit}`)).json()).toMatchObject({
        field: 'limit',
      });
    expect((await fetch(`${server.url}/events?limit=100`)).status).toBe(200);
    expect((await fetch(`${server.url}/nowhere`)).status).toBe(404);
    // A path that starts with two slashes is a path, not a host: no route matches it.
    expect((await fetch(`${server.url}//subscriptions`)).status).toBe(404);
    expect((await fetch(`${server.url}//evil.example/subscriptions`)).status).toBe(404);
  });

  it('refuses a body over the size limit with 413', async () => {
    harness = createAdminHarness();
    server = await startAdminServer({ port: 0, deps: harness.deps });
    const response = await fetch(`${server.url}/subscriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'x'.repeat(1024 * 1024 + 10) }),
    });
    expect(response.status).toBe(413);
  });
});
