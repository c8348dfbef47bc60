import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import type { BudgetViewSchema } from '../../shared/admin/schemas.ts';
import { runCli } from '../../shared/cli/main.ts';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';

type BudgetView = z.infer<typeof BudgetViewSchema>;

let harness: AdminHarness;
let server: AdminServer;
/** What the bridge reports as its budgets; undefined: none (as in AWS). */
let budgets: BudgetView[] | undefined;
beforeAll(async () => {
  harness = createAdminHarness();
  // The server copies its deps: the budgets are read through this indirection.
  harness.deps.budgets = () => budgets ?? [];
  server = await startAdminServer({ port: 0, deps: harness.deps });
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

/** A connection's budget as `GET /streams` answers it. */
function budget(connectionId: string, requestsInWindow: number): BudgetView {
  return {
    connectionId,
    requestsInWindow,
    limit: 200,
    liveReserve: 160,
    queued: { live: 1, bulk: 4 },
    pausedUntil: null,
  };
}

describe('change-bridge streams list and the connector budget', () => {
  it('--json carries the budget lines the text shows, on each stream of the connection', async () => {
    budgets = [budget('main', 37)];
    try {
      const text = await run(['streams', 'list']);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(
        'connector budget of main: 37 of 200 requests in the last 30 s, live reserve 160, queued 1 live and 4 bulk',
      );
      const json = await run(['streams', 'list', '--json']);
      expect(json.code).toBe(0);
      const streams = JSON.parse(json.stdout) as { id: string; budget: unknown }[];
      // Still the array of streams, each with its connection's budget (before: none at all).
      expect(streams.map((s) => s.id)).toEqual([
        'main:customer',
        'main:resource',
        'main:taxEnvironment',
      ]);
      for (const stream of streams) expect(stream.budget).toEqual(budget('main', 37));
    } finally {
      budgets = undefined;
    }
  });

  it('--json gives budget null on streams whose connection has no budget reported', async () => {
    const json = await run(['streams', 'list', '--json']);
    expect(json.code).toBe(0);
    const streams = JSON.parse(json.stdout) as { budget: unknown }[];
    expect(streams.length).toBeGreaterThan(0);
    for (const stream of streams) expect(stream.budget).toBeNull();
  });
});
