import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/main.ts';

/** What the server at --api answers every request: another program than the bridge. */
let answer: { status: number; type: string; body: string };
let server: Server;
let api: string;
beforeAll(async () => {
  server = createServer((_request, response) => {
    response.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function run(argv: readonly string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli([...argv, '--api', api], {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('--api naming a server that is not the admin API of change-bridge start', () => {
  it.each([
    [
      'a 404 of another JSON API (the simulator)',
      404,
      'application/json',
      '{"Message":"Not found."}',
    ],
    ['a 400 of another JSON API', 400, 'application/json', '{"message":"Bad Request"}'],
    ['a web page', 200, 'text/html', '<!doctype html><p>dev server</p>'],
    ['a 404 page', 404, 'text/html', '<h1>Not Found</h1>'],
    ['JSON of another shape', 200, 'application/json', '{"items":[]}'],
  ])('exits 1 saying start may not run there, for %s', async (_name, status, type, body) => {
    answer = { status, type, body };
    for (const args of [
      ['subscriptions', 'list', '--json'],
      ['events', 'show', 'evt_00000000000000000000000001'],
    ]) {
      const result = await run(args);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`answered ${status}`);
      expect(result.stderr).toContain(`is "change-bridge start" running at ${api}?`);
    }
  });
});
