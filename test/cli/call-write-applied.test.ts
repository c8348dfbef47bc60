import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../shared/cli/main.ts';
import { type JsonServer, startJsonServer } from '../support/json-server.ts';

let connector: JsonServer;
beforeAll(async () => {
  // A connector that applies the write and answers 200 with a body that is not JSON.
  connector = await startJsonServer(() => ({ status: 200, rawBody: 'OK' }));
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await connector.close();
});

describe('change-bridge call, a write answered 200 with a body it cannot read', () => {
  it('exits 1 saying the write was applied and must not be sent again', async () => {
    vi.stubEnv('CONNECTOR_BASE_URL', connector.url);
    vi.stubEnv('CONNECTOR_CLIENT_TOKEN', 'ct');
    vi.stubEnv('CONNECTOR_ACCESS_TOKEN', 'at');
    const out: string[] = [];
    const err: string[] = [];
    const data = JSON.stringify({
      ServiceId: 'a0000000-0000-4000-8000-0000000000e2',
      Data: [{ Type: 'Stay' }],
    });
    const code = await runCli(['call', 'restrictions/clear', '--data', data], {
      out: (text) => out.push(text),
      err: (text) => err.push(text),
    });
    expect(code).toBe(1);
    expect(out).toEqual([]);
    expect(connector.requests).toHaveLength(1);
    // Before, only "the response body is not JSON": a caller retrying on exit 1 applied it twice.
    expect(err.join('\n')).toContain(
      'restrictions/clear: the response body is not JSON; the connector answered 200, so the write was applied: do not send it again',
    );
  });
});
