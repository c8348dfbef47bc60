import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/main.ts';
import { type JsonServer, startJsonServer } from '../support/json-server.ts';

let bridge: JsonServer;
beforeAll(async () => {
  // The admin API's connector proxy, passing on a 429 its retries gave up on.
  bridge = await startJsonServer(() => ({
    status: 429,
    body: { Message: 'Too many requests.', RequestId: 'r-2', Details: null },
    headers: { 'retry-after': '7' },
  }));
});
afterAll(() => bridge.close());

describe('change-bridge call --via-bridge', () => {
  it('names the wait of a 429 the proxy passed on', async () => {
    const err: string[] = [];
    const io = { out: () => {}, err: (text: string) => err.push(text) };
    const code = await runCli(['call', 'taxEnvironments/getAll', '--api', bridge.url], io);
    expect(code).toBe(1);
    expect(err.join('')).toContain('Too many requests.');
    // Before, the message left out when to come back.
    expect(err.join('')).toContain('retry after 7 s');
  });

  it('sends the call with the credentials of the connection --connection names', async () => {
    const io = { out: () => {}, err: () => {} };
    await runCli(
      ['call', 'taxEnvironments/getAll', '--api', bridge.url, '--connection', 'hotel-2'],
      io,
    );
    await runCli(['call', 'taxEnvironments/getAll', '--api', bridge.url], io);
    expect(bridge.requests.slice(-2).map((request) => request.path)).toEqual([
      '/api/connector/v1/taxEnvironments/getAll?connectionId=hotel-2',
      '/api/connector/v1/taxEnvironments/getAll',
    ]);
  });

  it('refuses a --connection that is no connection id before sending anything', async () => {
    const err: string[] = [];
    const sent = bridge.requests.length;
    const code = await runCli(
      ['call', 'taxEnvironments/getAll', '--api', bridge.url, '--connection', 'a/b'],
      { out: () => {}, err: (text: string) => err.push(text) },
    );
    expect(code).toBe(2);
    expect(err.join('')).toContain('--connection');
    expect(bridge.requests).toHaveLength(sent);
  });

  it('refuses --connection without --via-bridge or --api: a direct call goes with the CONNECTOR_* variables', async () => {
    const err: string[] = [];
    const code = await runCli(['call', 'taxEnvironments/getAll', '--connection', 'hotel-2'], {
      out: () => {},
      err: (text: string) => err.push(text),
    });
    expect(code).toBe(2);
    expect(err.join('')).toContain('--connection');
  });
});
