import type { SimModel } from './model.ts';
import { DAY_MS } from './sim-random.ts';
import type { SimProduct } from './world.ts';

/** products/getPricing rule 2: a Day-unit interval spans at most 100 days. */
export const PRICING_MAX_DAYS = 100;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function localTime(epochMs: number, timeZone: string): LocalTime {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(epochMs))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 0,
    day: parts.day ?? 0,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** UTC epoch of local midnight of a calendar date in `timeZone` (month 1-based). */
export function localMidnightUtc(
  year: number,
  month: number,
  day: number,
  timeZone: string,
): number {
  const wall = Date.UTC(year, month - 1, day);
  // Two passes settle the zone offset, also on DST change days (midnight itself never moves).
  let guess = wall;
  for (let pass = 0; pass < 2; pass += 1) {
    const local = localTime(guess, timeZone);
    const offset =
      Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second) -
      guess;
    guess = wall - offset;
  }
  return guess;
}

/** True when `epochMs` is exactly local midnight in `timeZone` (products/getPricing rule 1). */
export function isLocalMidnight(epochMs: number, timeZone: string): boolean {
  if (epochMs % 1000 !== 0) return false;
  const local = localTime(epochMs, timeZone);
  return local.hour === 0 && local.minute === 0 && local.second === 0;
}

/** Every local-midnight start from `firstMs` to `lastMs` inclusive (both are midnights). */
export function dayStartsBetween(firstMs: number, lastMs: number, timeZone: string): number[] {
  const starts: number[] = [];
  const first = localTime(firstMs, timeZone);
  for (let offset = 0; ; offset += 1) {
    const date = new Date(Date.UTC(first.year, first.month - 1, first.day + offset));
    const start = localMidnightUtc(
      date.getUTCFullYear(),
      date.getUTCMonth() + 1,
      date.getUTCDate(),
      timeZone,
    );
    if (start > lastMs) break;
    starts.push(start);
  }
  return starts;
}

/** Whole local days between two local midnights (23- and 25-hour DST days count as one). */
export function localDaysBetween(firstMs: number, lastMs: number, timeZone: string): number {
  const a = localTime(firstMs, timeZone);
  const b = localTime(lastMs, timeZone);
  return Math.round(
    (Date.UTC(b.year, b.month - 1, b.day) - Date.UTC(a.year, a.month - 1, a.day)) / DAY_MS,
  );
}

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
