import type { SimModel, SimOrderItem } from './model.ts';
import { DAY_MS, iso } from './sim-random.ts';

/**
 * Reservations (one or two per reservation group, up to `count`) with nights and product
 * order items, for the deprecated reservations/getAllItems. Amounts stay in the enterprise
 * currency and are converted on read.
 */
export function generateReservations(model: SimModel, count: number): void {
  const random = model.random;
  const now = model.clock.now();
  const customers = model.customers.storedCount;
  let made = 0;
  for (const group of model.reservationGroups.all()) {
    if (made >= count) break;
    const enterprise = model.world.enterprises.find((e) => e.Id === group.record.EnterpriseId)!;
    const accounting = [...model.accountingCategories.all()].filter(
      (entry) => entry.enterpriseId === enterprise.Id,
    );
    const products = model.world.products.filter(
      (product) => product.EnterpriseId === enterprise.Id,
    );
    for (let r = 0; r < random.int(1, 2) && made < count; r += 1) {
      const reservationId = random.uuid();
      const accountId =
        model.customers.at(random.int(0, customers - 1))?.record.Id ?? random.uuid();
      const arrival = now - random.int(-30, 300) * DAY_MS;
      const nights = random.int(1, 5);
      const closed = arrival + nights * DAY_MS < now;
      const items: SimOrderItem[] = [];
      const item = (
        gross: number,
        productId: string | null,
        consumedMs: number,
        revenueType: string,
      ): SimOrderItem => ({
        Id: random.uuid(),
        AccountId: accountId,
        OrderId: reservationId,
        BillId: closed ? random.uuid() : null,
        AccountingCategoryId: accounting[productId ? 1 : 0]!.record.Id,
        Count: 1,
        unitGross: gross,
        currency: enterprise.currency,
        taxRate: enterprise.taxRate,
        taxRateCode: enterprise.taxRateCode,
        RevenueType: revenueType,
        ConsumedUtc: iso(consumedMs),
        ClosedUtc: closed ? iso(consumedMs + nights * DAY_MS) : null,
        AccountingState: closed ? 'Closed' : random.pick(['Open', 'Open', 'Inactive']),
        ProductId: productId,
      });
      const nightly = (enterprise.currency === 'CZK' ? 2500 : 100) + random.int(0, 80);
      for (let night = 0; night < nights; night += 1)
        items.push(item(nightly, null, arrival + night * DAY_MS, 'Service'));
      if (products.length > 0 && random.chance(0.6)) {
        const product = random.pick(products);
        items.push(item(product.basePrice, product.Id, arrival, 'Product'));
      }
      model.reservations.set(reservationId, {
        ReservationId: reservationId,
        EnterpriseId: enterprise.Id,
        ReservationGroupId: group.record.Id,
        AccountId: accountId,
        orderItems: items,
      });
      made += 1;
    }
  }
}
