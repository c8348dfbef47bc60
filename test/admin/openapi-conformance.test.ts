import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import { matchPath } from '../../shared/admin/router.ts';
import type { HttpTransport } from '../../shared/connector/http-transport.ts';
import { createWriteThrough } from '../../shared/writes/write-through.ts';
import { driveClock } from '../support/drive-clock.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

type Json = Record<string, unknown>;

const SERVICE = 'a0000000-0000-4000-8000-0000000000e2';

/** The target of a local `$ref` (`#/components/…`), or `node` itself. */
function resolve(doc: Json, node: Json): Json {
  const ref = node.$ref;
  if (typeof ref !== 'string') return node;
  return ref
    .slice(2)
    .split('/')
    .reduce<Json>((at, key) => at[key] as Json, doc);
}

/**
 * The JSON schema the document gives for `status` of `method path`: the operation's own
 * response for that status, else its `default`; undefined when it documents neither.
 */
function documentedSchema(doc: Json, method: string, path: string, status: number) {
  const paths = doc.paths as Record<string, Record<string, Json>>;
  const template = Object.keys(paths).find((t) => matchPath(t, path) !== undefined);
  const operation = template ? paths[template]![method.toLowerCase()] : undefined;
  if (!operation) return undefined;
  const responses = operation.responses as Record<string, Json>;
  const response = responses[String(status)] ?? responses.default;
  if (!response) return undefined;
  const content = resolve(doc, response).content as Record<string, { schema: Json }> | undefined;
  return content?.['application/json']?.schema;
}

/** Validates `body` against `schema` as the document states it (its components in scope). */
function validates(doc: Json, schema: Json, body: unknown): string | undefined {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const validate = ajv.compile({ ...schema, components: doc.components });
  return validate(body) ? undefined : ajv.errorsText(validate.errors);
}

async function served(h: AdminHarness): Promise<Json> {
  return (await h.call('GET', '/openapi.json')).body as Json;
}

describe('OpenAPI document against the answers', () => {
  it('documents the 404 of an unknown path and the 405 of a wrong method, both {error}', async () => {
    harness = createAdminHarness();
    const doc = await served(harness);
    const unknown = await harness.call('GET', '/nope');
    const slash = await harness.call('GET', '/events/');
    const wrong = await harness.call('PUT', '/subscriptions');
    expect([unknown.status, slash.status, wrong.status]).toEqual([404, 404, 405]);
    // No operation holds them: the document says so, and gives their body as a shared response.
    const description = (doc.info as { description: string }).description;
    expect(description).toMatch(/404/);
    expect(description).toMatch(/405/);
    const error = resolve(doc, { $ref: '#/components/responses/Error' });
    const schema = (error.content as Record<string, { schema: Json }>)['application/json']!.schema;
    for (const response of [unknown, slash, wrong]) {
      expect(validates(doc, schema, response.body)).toBeUndefined();
    }
  });

  it('documents every error status an operation answers, with the body it sends', async () => {
    harness = createAdminHarness();
    const doc = await served(harness);
    const requests: [string, string, unknown?][] = [
      ['GET', '/subscriptions/sub_none'],
      ['POST', '/subscriptions', { url: 'ftp://x' }],
      ['GET', '/events', { cursor: 'nonsense' }],
      // No connector proxy in the harness: its routes answer 404 on a path without an id.
      [
        'POST',
        '/api/connector/v1/restrictions/clear',
        { ServiceId: SERVICE, Data: [{ Type: 'Stay' }] },
      ],
    ];
    for (const [method, path, input] of requests) {
      const response = await harness.call(
        method,
        path,
        method === 'GET' ? { query: input as Record<string, string> } : { body: input },
      );
      const label = `${method} ${path} ${response.status}`;
      expect(response.status, label).toBeGreaterThanOrEqual(400);
      const schema = documentedSchema(doc, method, path, response.status);
      expect(schema, label).toBeDefined();
      expect(validates(doc, schema!, response.body), label).toBeUndefined();
    }
  });

  it('documents the connector errors the proxy passes through, beside its own {error, field}', async () => {
    harness = createAdminHarness();
    const doc = await served(harness);
    const path = '/api/connector/v1/restrictions/clear';
    const body = { ServiceId: SERVICE, Data: [{ Type: 'Stay' }] };
    for (const status of [400, 401, 403, 408, 409, 429, 500]) {
      const answer = { Message: `refused ${status}`, RequestId: 'r-1', Details: null };
      const transport: HttpTransport = {
        postJson: async () => ({ status, headers: {}, text: JSON.stringify(answer) }),
        close: async () => {},
      };
      harness.deps.writeThrough = createWriteThrough({
        connectionId: 'main',
        connector: {
          baseUrl: 'http://connector.invalid',
          clientToken: 'ct',
          accessToken: 'at',
          client: 'test',
          rateLimit: false,
        },
        scope: {},
        publisher: { publish: async () => ({ published: 0, thinned: 0, failures: [] }) },
        state: harness.state,
        streams: harness.streams,
        clock: harness.clock,
        transport,
        onPublishError: () => {},
      });
      const response = await driveClock(harness.clock, harness.call('POST', path, { body }));
      expect(response, String(status)).toEqual({ status, body: answer });
      const schema = documentedSchema(doc, 'POST', path, status);
      expect(validates(doc, schema!, response.body), String(status)).toBeUndefined();
    }
    // The bridge's own refusal of the body, before anything is sent.
    const own = await harness.call('POST', path, { body: { ...body, AccessToken: 'x' } });
    expect(own).toMatchObject({ status: 400, body: { field: 'AccessToken' } });
    expect(validates(doc, documentedSchema(doc, 'POST', path, 400)!, own.body)).toBeUndefined();
    // Named though the rest of the body is wrong too: the credential is the mistake to fix.
    const alone = await harness.call('POST', path, { body: { AccessToken: 'x' } });
    expect(alone).toMatchObject({ status: 400, body: { field: 'AccessToken' } });
    // Named with why: the bridge adds the credentials itself.
    expect((alone.body as { error: string }).error).toContain(
      'AccessToken: leave it out: ClientToken, AccessToken and Client are added from the configured connection',
    );
  });
});
