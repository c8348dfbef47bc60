import type { AccountingCategory } from '../connector/records/index.ts';
import { dayStartUtc } from '../time-zone.ts';
import type { Entry } from './entity-set.ts';
import type { SimModel, SimOrderItem, SimReservation } from './model.ts';
import { DAY_MS, iso } from './sim-random.ts';

/**
 * Accounting category entries grouped by enterprise, in insertion order: one pass, so that
 * datasets of 1,000 enterprises do not scan every category once per enterprise.
 */
export function accountingByEnterprise(model: SimModel): Map<string, Entry<AccountingCategory>[]> {
  const grouped = new Map<string, Entry<AccountingCategory>[]>();
  for (const entry of model.accountingCategories.all()) {
    const key = entry.enterpriseId ?? '';
    const list = grouped.get(key) ?? [];
    list.push(entry);
    grouped.set(key, list);
  }
  return grouped;
}

/**
 * Reservations (one or two per reservation group, up to `count`) with nights and product
 * order items, for the deprecated reservations/getAllItems. Amounts stay in the enterprise
 * currency and are converted on read. Arrivals are relative to `nowMs`, the dataset's now.
 */
export function generateReservations(model: SimModel, count: number, nowMs: number): void {
  const random = model.random;
  const customers = model.customers.storedCount;
  let made = 0;
  const accountingOf = accountingByEnterprise(model);
  for (const group of model.reservationGroups.all()) {
    if (made >= count) break;
    const enterprise = model.world.enterprises.find((e) => e.Id === group.record.EnterpriseId)!;
    const accounting = accountingOf.get(enterprise.Id) ?? [];
    const products = model.world.products.filter(
      (product) => product.EnterpriseId === enterprise.Id,
    );
    for (let r = 0; r < random.int(1, 2) && made < count; r += 1) {
      const reservationId = random.uuid();
      // A guest of the hotel's own chain (independent hotels share none).
      const accountId =
        model.customerOfChainFrom(random.int(0, customers - 1), enterprise.ChainId) ??
        random.uuid();
      const arrival = nowMs - random.int(-30, 300) * DAY_MS;
      const nights = random.int(1, 5);
      const closed = arrival + nights * DAY_MS < nowMs;
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
        // Consumed at the start of its Day time unit, which products/getPricing takes as is.
        const unitStart = dayStartUtc(arrival, enterprise.timeZone);
        items.push(item(product.basePrice, product.Id, unitStart, 'Product'));
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

/** Every third payment request is linked to a reservation (the rest to nothing, as before). */
const LINK_EVERY = 3;

/** The reservations of an enterprise, in creation order. */
export function reservationsOf(model: SimModel, enterpriseId: string): SimReservation[] {
  return [...model.reservations.values()].filter(
    (reservation) => reservation.EnterpriseId === enterpriseId,
  );
}

/**
 * The reservation the `n`-th payment request pays for, among `candidates`, when it is one
 * of the linked third (deterministic: no random draw, so the rest of the dataset stays put).
 */
export function linkedReservation(
  candidates: readonly SimReservation[],
  n: number,
): SimReservation | undefined {
  if (n % LINK_EVERY !== 0 || candidates.length === 0) return undefined;
  return candidates[Math.floor(n / LINK_EVERY) % candidates.length];
}

/** The fields that tie a payment request to `reservation`: its ids and its account. */
export function paymentRequestLink(reservation: SimReservation) {
  return {
    ReservationId: reservation.ReservationId,
    ReservationGroupId: reservation.ReservationGroupId,
    AccountId: reservation.AccountId,
    CustomerId: reservation.AccountId,
  };
}

/**
 * Links about a third of the generated payment requests of each enterprise to its
 * reservations (and so to reservation groups), so a client can find reservations, their
 * order items and the products in them through paymentRequests/getAll.
 */
export function linkPaymentRequests(model: SimModel): void {
  const counts = new Map<string, number>();
  const reservations = new Map<string, SimReservation[]>();
  for (const entry of model.paymentRequests.all()) {
    const enterpriseId = entry.record.EnterpriseId;
    const n = counts.get(enterpriseId) ?? 0;
    counts.set(enterpriseId, n + 1);
    if (!reservations.has(enterpriseId))
      reservations.set(enterpriseId, reservationsOf(model, enterpriseId));
    const reservation = linkedReservation(reservations.get(enterpriseId)!, n);
    if (reservation) entry.record = { ...entry.record, ...paymentRequestLink(reservation) };
  }
}
