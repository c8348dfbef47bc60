import { afterEach, describe, expect, it } from 'vitest';
import type { HttpTransport } from '../../shared/connector/http-transport.ts';
import { PublishError } from '../../shared/publish/publisher.ts';
import { createWriteThrough } from '../../shared/writes/write-through.ts';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';
import { driveClock } from '../support/drive-clock.ts';

const CONNECTOR = {
  baseUrl: 'http://connector.invalid',
  clientToken: 'ct',
  accessToken: 'at',
  client: 'test',
  rateLimit: false as const,
};
const SERVICE = 'a0000000-0000-4000-8000-0000000000e2';

function answering(status: number, body: unknown): HttpTransport & { bodies: unknown[] } {
  const bodies: unknown[] = [];
  return {
    bodies,
    postJson: async (_url, text) => {
      bodies.push(JSON.parse(text));
      return { status, headers: {}, text: JSON.stringify(body) };
    },
    close: async () => {},
  };
}

let harness: AdminHarness;
afterEach(() => harness?.close());

function withWriteThrough(
  transport: HttpTransport,
  publish: () => Promise<never> | Promise<{ published: number; thinned: number; failures: [] }>,
) {
  harness = createAdminHarness();
  const reported: unknown[] = [];
  harness.deps.writeThrough = createWriteThrough({
    connectionId: 'main',
    connector: CONNECTOR,
    scope: {},
    publisher: { publish },
    state: harness.state,
    streams: harness.streams,
    clock: harness.clock,
    transport,
    onPublishError: (error) => reported.push(error),
  });
  return reported;
}

describe('connector proxy failures', () => {
  it('adds the configured credentials and answers a connector error unchanged, publishing nothing', async () => {
    const transport = answering(409, { Message: 'Conflict', RequestId: 'r-9', Details: null });
    let published = 0;
    withWriteThrough(transport, async () => {
      published++;
      return { published: 0, thinned: 0, failures: [] };
    });
    const response = await harness.call('POST', '/api/connector/v1/restrictions/clear', {
      body: { ServiceId: SERVICE, Data: [{ Type: 'Stay' }] },
    });
    expect(response).toEqual({
      status: 409,
      body: { Message: 'Conflict', RequestId: 'r-9', Details: null },
    });
    expect(transport.bodies[0]).toMatchObject({
      ClientToken: 'ct',
      AccessToken: 'at',
      Client: 'test',
    });
    expect(published).toBe(0);
  });

  it('still answers the connector when the events cannot be published, and reports it', async () => {
    const reported = withWriteThrough(answering(200, {}), async () => {
      throw new PublishError('eventbridge', 'throttled');
    });
    const response = await harness.call('POST', '/api/connector/v1/restrictions/clear', {
      body: { ServiceId: SERVICE, Data: [{ Type: 'Stay' }] },
    });
    expect(response).toEqual({ status: 200, body: {} });
    expect(reported).toHaveLength(1);
  });

  it('answers 502 when the connector gives no answer', async () => {
    withWriteThrough(
      {
        postJson: async () => {
          throw new Error('connect ECONNREFUSED');
        },
        close: async () => {},
      },
      async () => ({ published: 0, thinned: 0, failures: [] }),
    );
    // The client's retries of a network failure sleep on the harness's manual clock.
    const response = await driveClock(
      harness.clock,
      harness.call('POST', '/api/connector/v1/taxEnvironments/getAll', { body: {} }),
      5_000,
    );
    expect(response.status).toBe(502);
  });

  it('answers 502 when the transport fails with something that is not an Error', async () => {
    withWriteThrough(
      {
        postJson: async () => {
          throw undefined;
        },
        close: async () => {},
      },
      async () => ({ published: 0, thinned: 0, failures: [] }),
    );
    const response = await driveClock(
      harness.clock,
      harness.call('POST', '/api/connector/v1/taxEnvironments/getAll', { body: {} }),
      5_000,
    );
    // Before: 500 internal error, the client's own message reading `.message` off undefined.
    expect(response).toEqual({
      status: 502,
      body: {
        error:
          'taxEnvironments/getAll: no answer from the Connector API (undefined thrown, not an Error)',
      },
    });
  });

  it('answers 404 when no connection is configured for the proxy', async () => {
    harness = createAdminHarness();
    const response = await harness.call('POST', '/api/connector/v1/taxEnvironments/getAll', {
      body: {},
    });
    expect(response.status).toBe(404);
  });

  it('gives the connector request a timeout that ends before its caller stops listening', async () => {
    const timeouts: number[] = [];
    const sentAt: number[] = [];
    withWriteThrough(
      {
        postJson: async (_url, _text, options) => {
          timeouts.push(options.timeoutMs);
          sentAt.push(harness.clock.now());
          // The first attempt meets an internal error; the retry is answered.
          const status = timeouts.length === 1 ? 500 : 200;
          return { status, headers: {}, text: '{}' };
        },
        close: async () => {},
      },
      async () => ({ published: 0, thinned: 0, failures: [] }),
    );
    const response = await driveClock(
      harness.clock,
      harness.call('POST', '/api/connector/v1/restrictions/clear', {
        body: { ServiceId: SERVICE, Data: [{ Type: 'Stay' }] },
      }),
    );
    expect(response.status).toBe(200);
    // API Gateway and the admin function end a call at 29 s, the CLI at 30 s. Before, each
    // request waited 60 s (the connector timeout): a write answered after 29 s was applied,
    // its caller told nothing, and its events never published.
    expect(timeouts).toHaveLength(2);
    expect(timeouts[0]).toBeLessThanOrEqual(25_000);
    // The retry has what is left of the same 25 s.
    expect(sentAt[1]).toBeGreaterThan(sentAt[0]!);
    expect(timeouts[1]).toBe(timeouts[0]! - (sentAt[1]! - sentAt[0]!));
  });
});
