import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  envelope,
  type Harness,
  interval,
  postRaw,
  startHarness,
  TEST_START_MS,
} from './harness.ts';

// connector-api.md #1: ChainIds is "required with Portfolio Access Tokens, ignored otherwise";
// Authentication 3: "These are ignored for other tokens."
describe('customers/getAll ChainIds with an ordinary AccessToken', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });
  const OTHER_CHAIN = '7d3c1e52-9a4b-4c1f-8e2d-5b6a7c8d9e0f';
  const recent = () => interval(TEST_START_MS - 80 * 86_400_000, TEST_START_MS + 1);
  const customers = async (body: Record<string, unknown>) => {
    const answer = await postRaw(h.sim, 'customers/getAll', {
      ...envelope(h.sim),
      Limitation: { Count: 20 },
      Extent: { Customers: true },
      ...body,
    });
    return { status: answer.status, body: JSON.parse(answer.text) };
  };
  const ids = (body: { Customers: { Id: string }[] }) => body.Customers.map((c) => c.Id);

  it("returns the token's customers whatever chain ChainIds names", async () => {
    const plain = await customers({ UpdatedUtc: recent() });
    expect(plain.status).toBe(200);
    expect(plain.body.Customers.length).toBeGreaterThan(0);
    const otherChain = await customers({ UpdatedUtc: recent(), ChainIds: [OTHER_CHAIN] });
    expect(otherChain.status).toBe(200);
    expect(ids(otherChain.body)).toEqual(ids(plain.body));
  });

  it('does not count ChainIds as a filter: ChainIds alone is a 400 like no filter at all', async () => {
    const none = await customers({});
    const chainOnly = await customers({ ChainIds: [h.sim.controls.model.world.chainId] });
    expect(none.status).toBe(400);
    expect(chainOnly.status).toBe(400);
    expect(chainOnly.body.Message).toBe(none.body.Message);
    expect(chainOnly.body.Message).toContain('CustomerIds: required when no other filter');
  });

  // Ignored is not unread: a ChainIds that breaks the contract is a malformed request whatever
  // the token, as the client refuses it before sending (parseRequestFor).
  for (const [what, chainIds, message] of [
    ['no items', [], 'ChainIds: Too small'],
    ['1001 items', Array.from({ length: 1001 }, () => OTHER_CHAIN), 'ChainIds: Too big'],
    ['an id that is no GUID', ['chain-1'], 'ChainIds[0]: Invalid GUID'],
  ] as const) {
    it(`answers 400 naming ChainIds for a ChainIds of ${what}`, async () => {
      const answer = await customers({ UpdatedUtc: recent(), ChainIds: chainIds });
      expect(answer.status).toBe(400);
      expect(answer.body.Message).toContain(message);
    });
  }

  it('still filters by ChainIds for a Portfolio Access Token', async () => {
    const answer = await postRaw(h.sim, 'customers/getAll', {
      ...envelope(h.sim, h.sim.tokens.portfolioToken),
      Limitation: { Count: 20 },
      Extent: { Customers: true },
      UpdatedUtc: recent(),
      ChainIds: [OTHER_CHAIN],
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).Customers).toEqual([]);
  });
});
