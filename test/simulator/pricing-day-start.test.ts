import { afterEach, describe, expect, it } from 'vitest';
import { priceHorizon } from '../../shared/polling/strategies/product-prices.ts';
import { type Harness, startHarness } from './harness.ts';

/**
 * connector-api.md, products/getPricing rule 1: "Each timestamp must be exactly the UTC start
 * boundary of a time unit (for a Day unit, local midnight converted to UTC). Other timestamps are
 * not permitted." In zones whose DST starts at midnight (America/Santiago, America/Havana) the
 * day has no 00:00: it starts at 01:00 local. time-zone.ts assumes "midnight itself never moves".
 */
describe('products/getPricing day starts on a DST-at-midnight day', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('priceHorizon starts the horizon at the real start of 2026-09-06 in Santiago', () => {
    // 2026-09-06 12:00 local (-03): Chile moved clocks from 00:00 to 01:00 that night.
    const horizon = priceHorizon(Date.parse('2026-09-06T15:00:00Z'), 1, 'America/Santiago');
    // 01:00 local at -03 is 04:00Z; the code sends 03:00Z, which is 23:00 of 5 September.
    expect(horizon.first).toBe('2026-09-06T04:00:00.000Z');
  });

  it('priceHorizon ends a 30-day horizon at the real start of 2026-03-08 in Havana', () => {
    const horizon = priceHorizon(Date.parse('2026-02-07T17:00:00Z'), 30, 'America/Havana');
    // Cuba jumps from 00:00 to 01:00 on 8 March 2026 (-05 to -04): the day starts at 05:00Z.
    expect(horizon.last).toBe('2026-03-08T05:00:00.000Z');
  });

  it('the simulator accepts the true day start of that day (rule 1 permits it)', async () => {
    harness = await startHarness();
    const world = harness.sim.controls.model.world;
    const enterprise = world.enterprises[0]!;
    (enterprise as { timeZone: string }).timeZone = 'America/Santiago';
    const product = world.products.find((p) => p.EnterpriseId === enterprise.Id)!;
    const answer = await harness.client
      .call('products/getPricing', {
        ProductId: product.Id,
        FirstTimeUnitStartUtc: '2026-09-06T04:00:00Z',
        LastTimeUnitStartUtc: '2026-09-07T03:00:00Z',
      })
      .then(
        (response) => ({ ok: true as const, response }),
        (error: Error) => ({ ok: false as const, error: error.message }),
      );
    expect(answer.ok ? 'accepted' : answer.error).toBe('accepted');
  });
});
