import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, type Harness, postRaw, startHarness } from './harness.ts';

/**
 * design.md facts: 200 requests per AccessToken in any 30-second window, a Portfolio Access
 * Token sharing one budget over its enterprises. A request refused with 429 is not counted:
 * connector-api.md gives Retry-After as "the wait before the next request", which holds only if
 * the refused requests do not themselves push the window on.
 */
describe('the server budget as the simulator counts arrivals', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.sim.controls.setRateLimit({ requests: 5, windowMs: 30_000 });
  });
  afterAll(async () => {
    h.sim.controls.setRateLimit({ requests: 200, windowMs: 30_000 });
    await h.close();
  });

  const call = (token = h.sim.tokens.accessToken) =>
    postRaw(h.sim, 'taxEnvironments/getAll', envelope(h.sim, token));

  it('does not count requests it refused with 429: after Retry-After the next request passes', async () => {
    h.sim.controls.resetRateLimits();
    // A client error still arrived: it counts like the four answered requests.
    expect(
      (await postRaw(h.sim, 'customers/getAll', { ...envelope(h.sim), Limitation: { Count: 0 } }))
        .status,
    ).toBe(400);
    for (let i = 0; i < 4; i += 1) expect((await call()).status).toBe(200);
    await h.clock.advance(10_000);
    const refused = [await call(), await call(), await call()];
    expect(refused.map((answer) => answer.status)).toEqual([429, 429, 429]);
    expect(refused.map((answer) => answer.headers.get('retry-after'))).toEqual(['20', '20', '20']);
    await h.clock.advance(20_000);
    for (let i = 0; i < 5; i += 1) expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(429);
  });

  it('gives the Portfolio token one budget over every enterprise, apart from the enterprise tokens', async () => {
    h.sim.controls.resetRateLimits();
    const enterprises = h.sim.controls.model.world.enterprises.map((e) => e.Id);
    const page = (enterpriseId: string) =>
      postRaw(h.sim, 'accountingCategories/getAll', {
        ...envelope(h.sim, h.sim.tokens.portfolioToken),
        Limitation: { Count: 1 },
        EnterpriseIds: [enterpriseId],
      });
    const statuses = [];
    for (let i = 0; i < 6; i += 1)
      statuses.push((await page(enterprises[i % enterprises.length]!)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    for (const token of h.sim.enterpriseTokens)
      expect((await call(token.accessToken)).status).toBe(200);
  });
});
