import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { interval, TEST_START_MS } from './harness.ts';

const OPERATIONS = 'api/connector/v1';
const DAY_MS = 86_400_000;
let sim: RunningSimulator | undefined;

afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(
  enterprises: number,
  rateLimit: { requests: number; windowMs: number } | false = false,
) {
  const clock = new ManualClock(TEST_START_MS);
  sim = await startSimulator({ seed: 5, size: 'small', clock, enterprises, rateLimit });
  return { sim, clock };
}

async function call(
  running: RunningSimulator,
  accessToken: string,
  operation: string,
  body: object = {},
) {
  const response = await fetch(`${running.url}/${OPERATIONS}/${operation}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      ClientToken: running.tokens.clientToken,
      AccessToken: accessToken,
      Client: 'enterprises test',
      ...body,
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('simulator with many enterprises', () => {
  it('gives each enterprise its own AccessToken and keeps the default for the first', async () => {
    const { sim } = await start(25);
    const tokens = sim.enterpriseTokens;
    expect(tokens).toHaveLength(25);
    expect(tokens[0]!.accessToken).toBe('sim-access-token');
    expect(new Set(tokens.map((t) => t.accessToken)).size).toBe(25);
    expect(tokens.map((t) => t.enterpriseId)).toEqual(
      sim.controls.model.world.enterprises.map((e) => e.Id),
    );
  });

  it('scopes an enterprise token to the resources of its own enterprise', async () => {
    const { sim } = await start(10);
    for (const token of [sim.enterpriseTokens[0]!, sim.enterpriseTokens[7]!]) {
      const answer = await call(sim, token.accessToken, 'resources/getAll', {
        Limitation: { Count: 1000 },
        Extent: { Resources: true },
      });
      expect(answer.status).toBe(200);
      const resources = answer.body.Resources as { EnterpriseId: string }[];
      expect(resources.length).toBeGreaterThan(0);
      expect(new Set(resources.map((r) => r.EnterpriseId))).toEqual(new Set([token.enterpriseId]));
    }
  });

  it('a portfolio connection scoped to one enterprise reads only its records, whatever the token reaches', async () => {
    const { sim } = await start(5);
    const enterprise = sim.controls.model.world.enterprises[3]!.Id;
    const client = createConnectorClient({
      baseUrl: sim.url,
      clientToken: sim.tokens.clientToken,
      accessToken: sim.tokens.portfolioToken,
      client: 'enterprises test',
      rateLimit: false,
      portfolioScope: { chainIds: [], enterpriseIds: [enterprise] },
    });
    try {
      for (const [operation, key] of [
        ['resources/getAll', 'Resources'],
        ['accountingCategories/getAll', 'AccountingCategories'],
        ['paymentRequests/getAll', 'PaymentRequests'],
        ['productCategories/getAll', 'ProductCategories'],
      ] as const) {
        const answer = (await client.call(operation, {
          Limitation: { Count: 1000 },
          ...(key === 'Resources' ? { Extent: { Resources: true } } : {}),
        } as never)) as Record<string, { EnterpriseId: string }[]>;
        const records = answer[key]!;
        expect(records.length, operation).toBeGreaterThan(0);
        expect(new Set(records.map((r) => r.EnterpriseId)), operation).toEqual(
          new Set([enterprise]),
        );
      }
    } finally {
      await client.close();
    }
  });

  it('pages records newest first by creation across every enterprise a portfolio token reaches', async () => {
    const { sim } = await start(5);
    for (const [operation, key] of [
      ['resources/getAll', 'Resources'],
      ['paymentRequests/getAll', 'PaymentRequests'],
    ] as const) {
      const answer = await call(sim, sim.tokens.portfolioToken, operation, {
        Limitation: { Count: 1000 },
        ...(key === 'Resources' ? { Extent: { Resources: true } } : {}),
      });
      expect(answer.status, operation).toBe(200);
      const created = (answer.body[key] as { CreatedUtc: string }[]).map((r) =>
        Date.parse(r.CreatedUtc),
      );
      expect(new Set(created).size, operation).toBeGreaterThan(1);
      expect(created, operation).toEqual([...created].sort((a, b) => b - a));
    }
  });

  it('refuses a token that no enterprise holds', async () => {
    const { sim } = await start(4);
    expect(
      (await call(sim, 'sim-access-token-5', 'resources/getAll', { Limitation: { Count: 10 } }))
        .status,
    ).toBe(401);
  });

  it("counts the request budget per AccessToken, so one enterprise cannot spend another one's", async () => {
    const { sim } = await start(3, { requests: 2, windowMs: 30_000 });
    const [first, second] = sim.enterpriseTokens;
    const ask = (token: string) =>
      call(sim, token, 'resources/getAll', { Limitation: { Count: 1 } });
    expect((await ask(first!.accessToken)).status).toBe(200);
    expect((await ask(first!.accessToken)).status).toBe(200);
    expect((await ask(first!.accessToken)).status).toBe(429);
    expect((await ask(second!.accessToken)).status).toBe(200);
  });

  it('spreads background activity over several enterprises', async () => {
    const { sim } = await start(20);
    const model = sim.controls.model;
    await sim.controls.runActivity({ steps: 400 });
    const touched = new Set<string>();
    for (const set of [
      model.resources,
      model.paymentRequests,
      model.reservationGroups,
      model.billingAutomations,
      model.routingRules,
      model.vouchers,
      model.productCategories,
    ]) {
      for (const entry of set.all())
        if (entry.updatedMs >= TEST_START_MS && entry.enterpriseId) touched.add(entry.enterpriseId);
    }
    expect(touched.size).toBeGreaterThan(5);
  });

  it('serves every token at GET /_sim/tokens', async () => {
    const { sim } = await start(12);
    const answer = (await (await fetch(`${sim.url}/_sim/tokens`)).json()) as {
      enterprises: unknown[];
      portfolioToken: string;
    };
    expect(answer.enterprises).toHaveLength(12);
    expect(answer.portfolioToken).toBe('sim-portfolio-token');
  });

  it('holds 1,000 enterprises and answers the token of the last one', async () => {
    const { sim } = await start(1000);
    expect(sim.enterpriseTokens).toHaveLength(1000);
    const last = sim.enterpriseTokens[999]!;
    const answer = await call(sim, last.accessToken, 'resources/getAll', {
      Limitation: { Count: 5 },
    });
    expect(answer.status).toBe(200);
  });

  it("with a chain per enterprise, keeps each hotel's customers, notes and memberships its own", async () => {
    const clock = new ManualClock(TEST_START_MS);
    sim = await startSimulator({
      seed: 5,
      size: 'small',
      clock,
      enterprises: 4,
      chainPerEnterprise: true,
      rateLimit: false,
    });
    const { world } = sim.controls.model;
    expect(new Set(world.enterprises.map((e) => e.ChainId)).size).toBe(4);
    expect(world.chainIds).toEqual(world.enterprises.map((e) => e.ChainId));
    await sim.controls.runActivity({ steps: 300 });
    const seen = new Map<string, string>();
    for (const [index, token] of sim.enterpriseTokens.entries()) {
      const chainId = world.enterprises[index]!.ChainId;
      for (const [operation, key] of [
        ['customers/getAll', 'Customers'],
        ['accountNotes/getAll', 'AccountNotes'],
        ['loyaltyMemberships/getAll', 'LoyaltyMemberships'],
      ] as const) {
        const answer = await call(sim, token.accessToken, operation, {
          // An ordinary token's ChainIds is ignored (connector-api.md #1), so not a filter.
          ...(operation === 'customers/getAll'
            ? {
                Extent: { Customers: true },
                UpdatedUtc: interval(clock.now() - 80 * DAY_MS, clock.now() + 1),
              }
            : {}),
          Limitation: { Count: 1000 },
        });
        expect([operation, answer.body.Message]).toEqual([operation, undefined]);
        expect(answer.status).toBe(200);
        const items = answer.body[key] as { Id: string; ChainId?: string }[];
        if (operation === 'customers/getAll') expect(items.length).toBeGreaterThan(0);
        for (const item of items) {
          if (item.ChainId !== undefined) expect(item.ChainId).toBe(chainId);
          // No record is seen by two hotels.
          expect(seen.get(item.Id) ?? token.accessToken).toBe(token.accessToken);
          seen.set(item.Id, token.accessToken);
        }
      }
    }
    const memberships = [...sim.controls.model.loyaltyMemberships.all()];
    for (const membership of memberships) {
      const program = sim.controls.model.loyaltyPrograms.get(membership.record.LoyaltyProgramId);
      expect(program?.chainId).toBe(membership.chainId);
      expect(sim.controls.model.customerChain(membership.record.AccountId)).toBe(
        membership.chainId,
      );
    }
    // The Portfolio Access Token sees every chain.
    const portfolio = await call(sim, sim.tokens.portfolioToken, 'customers/getAll', {
      ChainIds: world.chainIds,
      Extent: { Customers: true },
      Limitation: { Count: 1000 },
    });
    expect(portfolio.status).toBe(200);
    const chains = new Set(
      (portfolio.body.Customers as { ChainId: string }[]).map((c) => c.ChainId),
    );
    expect(chains.size).toBe(4);
  });
});
