import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { callViaBridge } from '../../shared/cli/call-via-bridge.ts';
import { CliExit } from '../../shared/cli/exit-codes.ts';
import { runCli } from '../../shared/cli/main.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server on a free loopback port that takes requests and never answers them. */
async function silentBridge(): Promise<string> {
  server = createServer(() => undefined);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

/** A loopback URL where nothing listens (a port just freed). */
async function deadUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

async function run(argv: readonly string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('change-bridge call --via-bridge when the bridge gives no answer', () => {
  it('names why the bridge could not be reached (ECONNREFUSED), not just "fetch failed"', async () => {
    const api = await deadUrl();
    const result = await run(['call', 'taxEnvironments/getAll', '--via-bridge', '--api', api]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`cannot reach the admin API at ${api} (ECONNREFUSED)`);
    expect(result.stderr).not.toContain('fetch failed');
  });

  it('says the bridge did not answer in time and that a write may have been applied, not that it cannot be reached', async () => {
    const api = await silentBridge();
    const failure = await callViaBridge(
      api,
      'paymentRequests/add',
      { PaymentRequests: [] },
      {},
      200,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CliExit);
    expect((failure as CliExit).code).toBe(1);
    expect((failure as Error).message).toBe(
      `the bridge at ${api} did not answer paymentRequests/add within 0.2 s; the write may have been applied: look for its effect before sending it again`,
    );
  });

  it('says a read was not answered in time, without a word about a write', async () => {
    const api = await silentBridge();
    const failure = await callViaBridge(api, 'taxEnvironments/getAll', {}, {}, 200).catch(
      (error: unknown) => error,
    );
    expect((failure as CliExit).code).toBe(1);
    expect((failure as Error).message).toBe(
      `the bridge at ${api} did not answer taxEnvironments/getAll within 0.2 s`,
    );
  });

  it('exits 1 when the bridge answers 200 with an empty body, printing nothing as the result', async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(200).end());
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const api = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    const result = await run(['call', 'taxEnvironments/getAll', '--api', api]);
    // Before: exit 0 printing undefined (on a terminal, a TypeError: reading 'endsWith').
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'taxEnvironments/getAll: the bridge answered 200 with an empty body, not JSON',
    );
  });

  it('says a write answered 200 was applied when its body is not JSON, so it is not sent again', async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'text/plain' }).end('OK'));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const api = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    const data = JSON.stringify({
      ServiceId: 'a0000000-0000-4000-8000-0000000000e2',
      Data: [{ Type: 'Stay' }],
    });
    const write = await run(['call', 'restrictions/clear', '--data', data, '--api', api]);
    expect(write.code).toBe(1);
    expect(write.stdout).toBe('');
    // Before, exit 1 said only "not JSON": a script retrying it would apply the write twice.
    expect(write.stderr).toContain(
      'restrictions/clear: the bridge answered 200 with a body that is not JSON; the connector answered 200, so the write was applied: do not send it again',
    );
    const read = await run(['call', 'taxEnvironments/getAll', '--api', api]);
    expect(read.code).toBe(1);
    expect(read.stderr).toContain('answered 200 with a body that is not JSON');
    expect(read.stderr).not.toContain('applied');
  });
});

/** A bridge that answers every call with `status`, `body` (as text) and `headers`. */
async function answeringBridge(
  status: number,
  body: string,
  headers: Record<string, string> = {},
): Promise<string> {
  server = createServer((_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe('change-bridge call --via-bridge when the connector refused the call', () => {
  it('names the RequestId from the Request-Id header when the body carries none', async () => {
    const api = await answeringBridge(500, JSON.stringify({ Message: 'Internal error' }), {
      'request-id': 'req-7f3a',
    });
    const result = await run(['call', 'taxEnvironments/getAll', '--via-bridge', '--api', api]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'taxEnvironments/getAll failed (HTTP 500): Internal error (RequestId req-7f3a)',
    );
  });

  it('says a write answered 408, 500, 502 or 504 may have been applied, and a read nothing of it', async () => {
    for (const status of [408, 500, 502, 504]) {
      const api = await answeringBridge(status, JSON.stringify({ Message: 'No answer' }));
      const write = await run([
        'call',
        'customers/update',
        '--data',
        '{"CustomerId":"3f0e4b2a-8c1d-4e5f-9a6b-7c8d9e0f1a2b","Notes":"VIP"}',
        '--via-bridge',
        '--api',
        api,
      ]);
      expect(write.code, String(status)).toBe(1);
      expect(write.stderr, String(status)).toContain(
        'the write may have been applied: look for its effect before sending it again',
      );
      const read = await run(['call', 'taxEnvironments/getAll', '--via-bridge', '--api', api]);
      expect(read.stderr, String(status)).not.toContain('may have been applied');
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
      server = undefined;
    }
  });

  it('says when to retry a call the bridge did not send (its own 429), from the Retry-After', async () => {
    const api = await answeringBridge(
      429,
      JSON.stringify({ error: 'taxEnvironments/getAll: not sent: the token is paused' }),
      { 'retry-after': '56' },
    );
    const result = await run(['call', 'taxEnvironments/getAll', '--via-bridge', '--api', api]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'taxEnvironments/getAll: not sent: the token is paused; retry after 56 s',
    );
  });
});
