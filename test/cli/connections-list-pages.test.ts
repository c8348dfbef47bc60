import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import { runCli } from '../../shared/cli/main.ts';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';

let harness: AdminHarness;
let server: AdminServer;
/** Connection ids: the harness's environment one first, then the stored ones by id. */
const ids = ['main', 'hotel-a', 'hotel-b', 'hotel-c', 'hotel-d', 'hotel-e'];

beforeAll(async () => {
  harness = createAdminHarness();
  for (const id of [...ids.slice(1)].reverse()) {
    const added = await harness.call('POST', '/connections', {
      body: { id, accessToken: `token-${id}`, entities: 'customer' },
    });
    expect(added.status).toBe(201);
  }
  // Pages of two connections, as a deployment of thousands answers pages of 4,000.
  server = await startAdminServer({ port: 0, deps: { ...harness.deps, connectionListLimit: 2 } });
});
afterAll(async () => {
  await server?.close();
  await harness?.close();
});

async function run(args: readonly string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli([...args, '--api', server.url], {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('change-bridge connections list over pages', () => {
  it('follows nextCursor to the last page: every connection once, in order', async () => {
    const text = await run(['connections', 'list']);
    expect(text.code, text.stderr).toBe(0);
    const rows = text.stdout.split('\n').filter((line) => /^(main|hotel-)/.test(line));
    expect(rows.map((line) => line.split(/\s+/)[0])).toEqual(ids);

    const json = await run(['connections', 'list', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as { id: string }[]).map((c) => c.id)).toEqual(ids);
  });
});
