import { ExportsGetAllRequestSchema } from '../connector/operations/exports-get-all.ts';
import { ProductsGetPricingRequestSchema } from '../connector/operations/products-get-pricing.ts';
import { ReservationsGetAllItemsRequestSchema } from '../connector/operations/reservations-get-all-items.ts';
import { TaxEnvironmentsGetAllRequestSchema } from '../connector/operations/tax-environments-get-all.ts';
import type { OrderItem } from '../connector/records/index.ts';
import { dayStartsBetween, isLocalMidnight, localDaysBetween } from '../time-zone.ts';
import { convertValue, grossAmount } from './amount.ts';
import type { SimContext } from './context.ts';
import { hasSubMillisecond } from './instant.ts';
import { dayPrice, PRICING_MAX_DAYS } from './pricing.ts';
import { allowedEnterprises, SimApiError } from './query.ts';

/** exports/getAll: the asked exports in scope, each in its current lifecycle state. */
export function exportsGetAll(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = ExportsGetAllRequestSchema.parse(raw);
  const enterprises = new Set(ctx.scope.enterpriseIds);
  const exports = body.ExportIds.flatMap((id) => {
    const entry = ctx.model.exports.get(id);
    return entry && enterprises.has(entry.enterpriseId ?? '') ? [entry.record] : [];
  });
  return { Exports: exports };
}

/** taxEnvironments/getAll: the supported environments, and beside them taxations and tax rates. */
export function taxEnvironmentsGetAll(ctx: SimContext, raw: Record<string, unknown>): unknown {
  TaxEnvironmentsGetAllRequestSchema.parse(raw);
  const environments = [...ctx.model.taxEnvironments.all()].map((entry) => entry.record);
  return {
    TaxEnvironments: environments,
    Taxations: ctx.model.taxations,
    TaxRates: ctx.model.taxRates,
  };
}

/**
 * products/getPricing: rule 1, both timestamps must be the start of a Day unit (local
 * midnight of the product's enterprise, in UTC); rule 2, at most 100 day units.
 */
export function productsGetPricing(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = ProductsGetPricingRequestSchema.parse(raw);
  const model = ctx.model;
  const product = model.world.products.find((p) => p.Id === body.ProductId);
  const enterprises = allowedEnterprises(ctx.scope, body.EnterpriseIds);
  if (!product || !enterprises.has(product.EnterpriseId))
    throw new SimApiError(400, 'ProductId: no such product');
  const enterprise = model.world.enterprises.find((e) => e.Id === product.EnterpriseId)!;
  const first = Date.parse(body.FirstTimeUnitStartUtc);
  const last = Date.parse(body.LastTimeUnitStartUtc);
  for (const [field, value] of [
    ['FirstTimeUnitStartUtc', first],
    ['LastTimeUnitStartUtc', last],
  ] as const) {
    // Exactly the boundary: Date.parse drops digits past the millisecond, so a time 100 ns after
    // midnight read as midnight.
    if (hasSubMillisecond(body[field]) || !isLocalMidnight(value, enterprise.timeZone)) {
      throw new SimApiError(
        400,
        `${field}: must be the start of a day time unit (local midnight of ${enterprise.timeZone} in UTC)`,
      );
    }
  }
  // The interval runs to the end of the last unit: 100 days hold 100 day units, not 101.
  if (localDaysBetween(first, last, enterprise.timeZone) + 1 > PRICING_MAX_DAYS) {
    throw new SimApiError(
      400,
      `LastTimeUnitStartUtc: the interval may span at most ${PRICING_MAX_DAYS} days (day units)`,
    );
  }
  const starts = dayStartsBetween(first, last, enterprise.timeZone);
  const amount = (gross: number) =>
    grossAmount(gross, enterprise.currency, enterprise.taxRate, enterprise.taxRateCode);
  const base = starts.map((start) => dayPrice(model, product, start, enterprise.timeZone));
  return {
    ProductId: product.Id,
    TimeUnitStartsUtc: starts.map((start) => new Date(start).toISOString()),
    BaseAmountPrices: base.map(amount),
    // Adults pay the base price, children half of it.
    AgeCategoryPrices: enterprise.ageCategoryIds.map((id, index) => ({
      AgeCategoryId: id,
      Prices: base.map((gross) => amount(index === 0 ? gross : Math.round(gross * 50) / 100)),
    })),
  };
}

/** reservations/getAllItems (deprecated): order items, converted to `Currency` when asked. */
export function reservationsGetAllItems(ctx: SimContext, raw: Record<string, unknown>): unknown {
  const body = ReservationsGetAllItemsRequestSchema.parse(raw);
  const states = new Set(body.AccountingStates ?? ['Open', 'Closed']);
  const enterprises = new Set(ctx.scope.enterpriseIds);
  if (body.Currency && convertValue(1, 'EUR', body.Currency) === undefined) {
    throw new SimApiError(400, `Currency: ${body.Currency} is not supported`);
  }
  const reservations = body.ReservationIds.flatMap((id) => {
    const reservation = ctx.model.reservations.get(id);
    if (!reservation || !enterprises.has(reservation.EnterpriseId)) return [];
    const items: OrderItem[] = reservation.orderItems
      .filter((item) => states.has(item.AccountingState))
      .map((item) => {
        const currency = body.Currency ?? item.currency;
        const gross =
          convertValue(item.unitGross * item.Count, item.currency, currency) ??
          item.unitGross * item.Count;
        return {
          Id: item.Id,
          AccountId: item.AccountId,
          OrderId: item.OrderId,
          BillId: item.BillId,
          AccountingCategoryId: item.AccountingCategoryId,
          Count: item.Count,
          Amount: grossAmount(gross, currency, item.taxRate, item.taxRateCode),
          RevenueType: item.RevenueType,
          ConsumedUtc: item.ConsumedUtc,
          ClosedUtc: item.ClosedUtc,
          AccountingState: item.AccountingState,
          Data: item.ProductId
            ? { Discriminator: 'ProductOrder', Value: { ProductId: item.ProductId } }
            : { Discriminator: 'SpaceOrder', Value: null },
        };
      });
    return [{ ReservationId: reservation.ReservationId, OrderItems: items }];
  });
  return { Reservations: reservations };
}
