import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.ts';

/**
 * products/getPricing rule 2: the interval spans at most 100 days for a Day unit, so at most 100
 * day units (the bridge's price horizon reads it so too: PRICE_HORIZON_MAX_DAYS).
 */
describe('products/getPricing interval of Day units', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('prices 100 day units and refuses 101 (400 naming LastTimeUnitStartUtc)', async () => {
    const world = h.sim.controls.model.world;
    const product = world.products.find((p) => p.EnterpriseId === world.enterprises[0]!.Id)!;
    // Europe/Prague local midnights: 28 March 2026 (winter time) to 5 and 6 July (summer time).
    const hundred = await h.client.products.getPricing({
      ProductId: product.Id,
      FirstTimeUnitStartUtc: '2026-03-27T23:00:00Z',
      LastTimeUnitStartUtc: '2026-07-04T22:00:00Z',
    });
    expect(hundred.TimeUnitStartsUtc).toHaveLength(100);
    await expect(
      h.client.products.getPricing({
        ProductId: product.Id,
        FirstTimeUnitStartUtc: '2026-03-27T23:00:00Z',
        LastTimeUnitStartUtc: '2026-07-05T22:00:00Z',
      }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('LastTimeUnitStartUtc'),
    });
  });
});
