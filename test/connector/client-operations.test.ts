import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import { ConnectorError } from '../../shared/connector/errors.ts';
import {
  OPERATION_NAMES,
  OPERATIONS,
  type OperationName,
} from '../../shared/connector/operations.ts';
import { ValidationError } from '../../shared/errors.ts';
import { type CannedResponse, type JsonServer, startJsonServer } from '../support/json-server.ts';
import { SAMPLE_REQUESTS, SAMPLE_RESPONSES } from './fixtures.ts';

const ENVELOPE = { ClientToken: 'ct-test', AccessToken: 'at-test', Client: 'change-bridge tests' };
const NO_RETRIES = { maxServerRetries: 0, maxRateLimitRetries: 0, baseDelayMs: 1, maxDelayMs: 1 };

let server: JsonServer;
let nextAnswer: (path: string) => CannedResponse;

beforeAll(async () => {
  server = await startJsonServer((request) => nextAnswer(request.path));
});
afterAll(() => server.close());

function client() {
  return createConnectorClient(
    {
      baseUrl: server.url,
      clientToken: ENVELOPE.ClientToken,
      accessToken: ENVELOPE.AccessToken,
      client: ENVELOPE.Client,
      rateLimit: false,
    },
    { retryLimits: NO_RETRIES },
  );
}

function answerWithSamples(path: string): CannedResponse {
  const name = OPERATION_NAMES.find((candidate) => OPERATIONS[candidate].path === path);
  return name
    ? { body: SAMPLE_RESPONSES[name] }
    : { status: 400, body: { Message: 'unknown path' } };
}

describe('the client sends each of the 20 operations', () => {
  it('covers exactly 20 operations', () => {
    expect(OPERATION_NAMES).toHaveLength(20);
  });

  it.each(OPERATION_NAMES.map((name) => [name]))(
    '%s: exact path and body, parsed response',
    async (name) => {
      nextAnswer = answerWithSamples;
      const before = server.requests.length;
      const api = client();
      const [entity, operation] = name.split('/') as [string, string];
      const method = (
        api as unknown as Record<string, Record<string, (body: unknown) => Promise<unknown>>>
      )[entity]![operation]!;
      const response = await method(SAMPLE_REQUESTS[name as OperationName]);
      await api.close();
      const sent = server.requests[before]!;
      expect(server.requests).toHaveLength(before + 1);
      expect(sent.method).toBe('POST');
      expect(sent.path).toBe(`/api/connector/v1/${name}`);
      expect(sent.body).toEqual({
        ...ENVELOPE,
        ...(SAMPLE_REQUESTS[name as OperationName] as object),
      });
      expect(response).toEqual(SAMPLE_RESPONSES[name as OperationName]);
    },
  );
});

describe('errors map by status to typed categories', () => {
  it.each([
    [400, 'client'],
    [401, 'authorization'],
    [403, 'validation'],
    [408, 'timeout'],
    [409, 'conflict'],
    [429, 'rate-limit'],
    [500, 'internal'],
  ] as const)(
    'HTTP %i is a %s error carrying Message, RequestId and Details',
    async (status, category) => {
      nextAnswer = () => ({
        status,
        body: { Message: `boom ${status}`, RequestId: `rid-${status}`, Details: { Field: 'X' } },
      });
      const api = client();
      const error = await api.call('taxEnvironments/getAll', {}).catch((caught: unknown) => caught);
      await api.close();
      expect(error).toBeInstanceOf(ConnectorError);
      expect(error).toMatchObject({
        category,
        status,
        requestId: `rid-${status}`,
        details: { Field: 'X' },
      });
      expect((error as Error).message).toContain(`boom ${status}`);
    },
  );

  it('uses the Request-Id header when the body has no RequestId', async () => {
    nextAnswer = () => ({
      status: 401,
      body: { Message: 'bad token' },
      headers: { 'request-id': 'hdr-7' },
    });
    const api = client();
    const error = await api.call('taxEnvironments/getAll', {}).catch((caught: unknown) => caught);
    await api.close();
    expect(error).toMatchObject({
      category: 'authorization',
      requestId: 'hdr-7',
      retryable: false,
    });
  });

  it.each([[''], ['  ']])(
    'uses the Request-Id header when the body RequestId is blank (%j)',
    async (blank) => {
      nextAnswer = () => ({
        status: 500,
        body: { Message: 'boom', RequestId: blank },
        headers: { 'request-id': 'hdr-8' },
      });
      const api = client();
      const error = await api.call('taxEnvironments/getAll', {}).catch((caught: unknown) => caught);
      await api.close();
      expect(error).toMatchObject({ category: 'internal', requestId: 'hdr-8' });
    },
  );

  it('names the HTTP status when the body Message is blank', async () => {
    nextAnswer = () => ({ status: 403, body: { Message: '', RequestId: 'rid-9' } });
    const api = client();
    const error = await api.call('taxEnvironments/getAll', {}).catch((caught: unknown) => caught);
    await api.close();
    expect((error as Error).message).toMatch(/: HTTP 403$/);
  });

  it('rejects a response missing a required field and names its path', async () => {
    const broken = structuredClone(SAMPLE_RESPONSES['customers/getAll']) as {
      Customers: Record<string, unknown>[];
    };
    delete broken.Customers[0]!.LastName;
    nextAnswer = () => ({ body: broken });
    const api = client();
    const error = await api
      .call('customers/getAll', SAMPLE_REQUESTS['customers/getAll'])
      .catch((caught: unknown) => caught);
    await api.close();
    expect(error).toMatchObject({ category: 'response' });
    expect((error as Error).message).toContain('Customers[0].LastName');
  });

  it('keeps unknown response fields', async () => {
    nextAnswer = () => ({ body: { ...SAMPLE_RESPONSES['taxEnvironments/getAll'], Novelty: 42 } });
    const api = client();
    const response = await api.call('taxEnvironments/getAll', {});
    await api.close();
    expect(response).toMatchObject({ Novelty: 42 });
  });

  it('validates the request before sending and sends nothing when it is invalid', async () => {
    const before = server.requests.length;
    const api = client();
    const error = await api
      .call('customers/getAll', {
        ...SAMPLE_REQUESTS['customers/getAll'],
        Limitation: { Count: 0 },
      })
      .catch((caught: unknown) => caught);
    await api.close();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe('Limitation.Count');
    expect(server.requests).toHaveLength(before);
  });
});
