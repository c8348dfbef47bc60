import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdminApiHandler } from '../../functions/admin-api.ts';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import { serializeAdminBody } from '../../shared/admin/response-body.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness;
let server: AdminServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await harness?.close();
});

/** A GET as API Gateway's HTTP API (payload 2.0) hands it to the function. */
function getEvent(rawPath: string): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: '',
    headers: { host: 'abc123.execute-api.eu-west-1.amazonaws.com' },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: {
        method: 'GET',
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.7',
        userAgent: 'Mozilla/5.0',
      },
      requestId: 'req-1',
      routeKey: '$default',
      stage: '$default',
      time: '01/Mar/2026:00:00:00 +0000',
      timeEpoch: 1_772_323_200_000,
    },
    isBase64Encoded: false,
  };
}

describe('console pages on both adapters', () => {
  it('sends a body with its own content-type as text, and every other body as JSON', () => {
    expect(
      serializeAdminBody({ status: 200, body: '<p>', headers: { 'content-type': 'text/html' } }),
    ).toEqual({ contentType: 'text/html', text: '<p>' });
    expect(serializeAdminBody({ status: 200, body: 'plain' })).toEqual({
      contentType: 'application/json; charset=utf-8',
      text: '"plain"',
    });
    expect(serializeAdminBody({ status: 204 })).toBeUndefined();
  });

  it('serves the page and its scripts over node:http with their media types', async () => {
    harness = createAdminHarness();
    server = await startAdminServer({ port: 0, deps: harness.deps });
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await page.text()).toMatch(/^<!doctype html>/);
    const script = await fetch(`${server.url}/console/api.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain("'content-type'");
  });

  it('serves the page from the Lambda handler as text, not as a JSON string', async () => {
    harness = createAdminHarness();
    const handler = createAdminApiHandler(() => harness.deps);
    const page = await handler(getEvent('/'));
    expect(page.statusCode).toBe(200);
    expect(page.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8' });
    expect(page.body).toMatch(/^<!doctype html>/);
    const style = await handler(getEvent('/console/style.css'));
    expect(style.headers).toMatchObject({ 'content-type': 'text/css; charset=utf-8' });
  });
});
