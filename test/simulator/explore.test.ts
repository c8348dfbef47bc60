import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatProductSample, productSamples } from '../../shared/simulator/product-samples.ts';
import { dayStartUtc } from '../../shared/time-zone.ts';
import { type Harness, startHarness, TEST_START_MS } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('a client that knows only the 20 operations', () => {
  it('finds a product through payment requests, reservations and order items, and prices it', async () => {
    const requests = await h.client.paymentRequests.getAll({ Limitation: { Count: 1000 } });
    const linked = requests.PaymentRequests.filter((request) => request.ReservationId !== null);
    // About a third of the payment requests pay for a reservation of a reservation group.
    const share = linked.length / requests.PaymentRequests.length;
    expect(share).toBeGreaterThan(0.25);
    expect(share).toBeLessThan(0.45);
    expect(linked.every((request) => request.ReservationGroupId !== null)).toBe(true);

    const groups = await h.client.reservationGroups.getAll({
      Limitation: { Count: 10 },
      ReservationGroupIds: [linked[0]!.ReservationGroupId!],
    });
    expect(groups.ReservationGroups.map((group) => group.Id)).toEqual([
      linked[0]!.ReservationGroupId,
    ]);

    const reservationIds = [...new Set(linked.map((request) => request.ReservationId!))];
    const items = await h.client.reservations.getAllItems({ ReservationIds: reservationIds });
    expect(items.Reservations.length).toBeGreaterThan(0);
    const productItem = items.Reservations.flatMap((reservation) => reservation.OrderItems).find(
      (item) => item.Data.Value?.ProductId !== undefined,
    );
    expect(productItem).toBeDefined();
    const productId = productItem!.Data.Value!.ProductId!;

    // A product order item is consumed at the start of its time unit: a valid pricing bound.
    const pricing = await h.client.products.getPricing({
      ProductId: productId,
      FirstTimeUnitStartUtc: productItem!.ConsumedUtc,
      LastTimeUnitStartUtc: productItem!.ConsumedUtc,
    });
    expect(pricing.ProductId).toBe(productId);
    expect(pricing.TimeUnitStartsUtc).toEqual([new Date(productItem!.ConsumedUtc).toISOString()]);
    expect(pricing.BaseAmountPrices).toHaveLength(1);
  });

  it('prices the products the banners print, by their time unit', async () => {
    const samples = productSamples(h.sim.controls.model.world, 3);
    expect(samples).toHaveLength(3);
    for (const sample of samples) {
      expect(formatProductSample(sample)).toMatch(
        new RegExp(`^${sample.productId}  Day \\(from local midnight, ${sample.timeZone}\\)  `),
      );
      const start = new Date(dayStartUtc(TEST_START_MS, sample.timeZone)).toISOString();
      const pricing = await h.client.products.getPricing({
        ProductId: sample.productId,
        FirstTimeUnitStartUtc: start,
        LastTimeUnitStartUtc: start,
      });
      expect(pricing.TimeUnitStartsUtc).toEqual([start]);
    }
  });
});
