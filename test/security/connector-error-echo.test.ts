import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import { ConnectorError } from '../../shared/connector/errors.ts';
import { type PollSettings, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { collectingPollDeps, POLL_TEST_START_MS } from '../polling/poll-harness.ts';
import { type JsonServer, startJsonServer } from '../support/json-server.ts';

/*
 * A connector (or a proxy or gateway before it) that repeats the request in its error answer:
 * `Message` naming the refused AccessToken, `Details` holding the body it was sent. The
 * bridge's error text goes to stream states (`streams list`), log lines and the CLI; design.md:
 * tokens never appear in logs or events, README: nor in an API answer or a CLI output.
 */

const ACCESS_TOKEN = 'hotel-access-token-7f3c9a2e51b84d06';
const CLIENT_TOKEN = 'deployment-client-token-0b9d4e7a';
const CONFIG = { clientToken: CLIENT_TOKEN, accessToken: ACCESS_TOKEN, client: 'tests' };

let server: JsonServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A connector that answers every request with `status`, echoing the request it was sent. */
async function echoingConnector(status: number): Promise<JsonServer> {
  return startJsonServer((request) => ({
    status,
    body: {
      Message: `Invalid AccessToken '${ACCESS_TOKEN}' for ClientToken "${CLIENT_TOKEN}"`,
      RequestId: 'req-1',
      Details: { request: request.body, raw: JSON.stringify(request.body) },
    },
  }));
}

function holdsToken(text: string): boolean {
  return text.includes(ACCESS_TOKEN) || text.includes(CLIENT_TOKEN);
}

describe('connector errors that echo the request', () => {
  it('keep the tokens out of the error message and details', async () => {
    for (const status of [400, 401, 403, 500]) {
      server = await echoingConnector(status);
      const client = createConnectorClient(
        { ...CONFIG, baseUrl: server.url, rateLimit: false },
        {
          clock: new ManualClock(),
          retryLimits: {
            maxServerRetries: 0,
            maxRateLimitRetries: 0,
            baseDelayMs: 1,
            maxDelayMs: 1,
          },
        },
      );
      const error = await client.call('taxEnvironments/getAll', {}).catch((e: unknown) => e);
      await client.close();
      await server.close();
      server = undefined;
      expect(error).toBeInstanceOf(ConnectorError);
      const failure = error as ConnectorError;
      expect(failure.status).toBe(status);
      // What it said stays, with the tokens left out.
      expect(failure.message).toContain('Invalid AccessToken');
      expect(holdsToken(failure.message)).toBe(false);
      expect(holdsToken(JSON.stringify(failure.details))).toBe(false);
      expect(holdsToken(String(failure.stack))).toBe(false);
    }
  });

  it('keep the AccessToken out of the state of the stream the 401 parked', async () => {
    server = await echoingConnector(401);
    const clock = new ManualClock(POLL_TEST_START_MS);
    const client = createConnectorClient(
      { ...CONFIG, baseUrl: server.url, rateLimit: false },
      { clock },
    );
    const store = new MemoryStateStore();
    const settings: PollSettings = {
      intervalMs: 60_000,
      entities: ['customer'],
      initialSync: 'baseline',
      windows: {
        overlapMs: 0,
        settleLagMs: 0,
        historyStartMs: Date.UTC(2020, 0, 1),
        minWindowMs: 0,
      },
      pageCount: 100,
      budgetMarginMs: 0,
    };
    const [definition] = streamDefinitions('hotel-1', settings);
    const deps = collectingPollDeps(store, client, clock, settings);
    const outcome = await pollStream(definition!, { ...deps, solePoller: true }, 'test');
    await client.close();
    expect(outcome.kind).toBe('failed');
    const state = await store.getStream('hotel-1:customer');
    expect(state?.parked).toBe(true);
    expect(holdsToken(JSON.stringify(outcome))).toBe(false);
    expect(holdsToken(JSON.stringify(state))).toBe(false);
  });
});
