import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import { runCli } from '../../shared/cli/main.ts';
import type { StateStore } from '../../shared/state/state-store.ts';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';
import { streamState } from '../state/state-store.contract.ts';

let harness: AdminHarness;
let server: AdminServer;
/** Reads of the stream states: one per page of GET /streams. */
let listings = 0;
/** Stream ids: the harness's connection's three, and two stored ones. */
let ids: string[];

beforeAll(async () => {
  harness = createAdminHarness();
  const budget = (connectionId: string) => ({
    connectionId,
    requestsInWindow: 37,
    limit: 200,
    liveReserve: 160,
    queued: { live: 1, bulk: 4 },
    pausedUntil: null,
  });
  // zz-old's streams come on the last page.
  harness.deps.budgets = () => [budget('main'), budget('zz-old')];
  for (const id of ['zz-old:customer', 'aa-kept:resource'])
    await harness.state.saveStream(streamState(id), 0);
  ids = [...harness.streams.map((d) => d.streamId), 'zz-old:customer', 'aa-kept:resource'].sort();
  const state: StateStore = Object.create(harness.state);
  state.listStreams = (...args) => {
    listings += 1;
    return harness.state.listStreams(...args);
  };
  // Pages of two streams, as a deployment of thousands answers pages of 4,000.
  server = await startAdminServer({
    port: 0,
    deps: { ...harness.deps, state, streamListLimit: 2 },
  });
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

describe('change-bridge streams list over pages', () => {
  it('follows nextCursor to the last page: every stream once, in order, the budget lines once', async () => {
    listings = 0;
    const text = await run(['streams', 'list']);
    expect(text.code, text.stderr).toBe(0);
    expect(listings).toBe(Math.ceil(ids.length / 2));
    const rows = text.stdout.split('\n').filter((line) => /^\S+:\S+\s/.test(line));
    expect(rows.map((line) => line.split(/\s+/)[0])).toEqual(ids);
    expect(text.stdout.match(/connector budget of main/g)).toHaveLength(1);
    expect(text.stdout.match(/connector budget of zz-old/g)).toHaveLength(1);

    const json = await run(['streams', 'list', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const streams = JSON.parse(json.stdout) as { id: string; budget: unknown }[];
    expect(streams.map((s) => s.id)).toEqual(ids);
    // Its connection's budget on every stream, whichever page it came in.
    for (const stream of streams.filter((s) => s.id.startsWith('main:')))
      expect(stream.budget).toMatchObject({ connectionId: 'main', requestsInWindow: 37 });
    expect(streams.find((s) => s.id === 'zz-old:customer')?.budget).toMatchObject({
      connectionId: 'zz-old',
    });
  });

  it("follows the pages of one connection's streams with --connection", async () => {
    const json = await run(['streams', 'list', '--connection', 'main', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as { id: string }[]).map((s) => s.id)).toEqual(
      ids.filter((id) => id.startsWith('main:')),
    );
  });
});
