import { localTime } from '../time-zone.ts';
import type { SimModel } from './model.ts';
import type { SimProduct } from './world.ts';

/** products/getPricing rule 2: a Day-unit interval spans at most 100 days. */
export const PRICING_MAX_DAYS = 100;

/** Key of one product price in the journal and the override map. */
export function priceKey(productId: string, dayStartMs: number): string {
  return `${productId}:${new Date(dayStartMs).toISOString()}`;
}

/**
 * Gross price of one day: an override set by activity, else the base price with a
 * weekend premium (Friday and Saturday nights +20%).
 */
export function dayPrice(
  model: SimModel,
  product: SimProduct,
  dayStartMs: number,
  timeZone: string,
): number {
  const override = model.priceOverrides.get(priceKey(product.Id, dayStartMs));
  if (override) return override.gross;
  const local = localTime(dayStartMs + 12 * 3_600_000, timeZone);
  const weekday = new Date(Date.UTC(local.year, local.month - 1, local.day)).getUTCDay();
  const factor = weekday === 5 || weekday === 6 ? 1.2 : 1;
  return Math.round(product.basePrice * factor * 100) / 100;
}
