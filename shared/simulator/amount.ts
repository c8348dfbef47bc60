import type { Amount } from '../connector/records/index.ts';

/** Units of each currency per one EUR; fixed so conversions are deterministic. */
export const EUR_RATES: Readonly<Record<string, number>> = {
  EUR: 1,
  CZK: 25,
  GBP: 0.85,
  USD: 1.08,
  CHF: 0.95,
};

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/**
 * An Amount from a gross value and one relative tax rate: net = gross / (1 + rate),
 * with the tax in `TaxValues` and a one-line `Breakdown` (connector-api.md, Amount).
 */
export function grossAmount(
  gross: number,
  currency: string,
  taxRate: number,
  taxRateCode: string | null,
): Amount {
  const net = round2(gross / (1 + taxRate));
  const tax = round2(gross - net);
  return {
    Currency: currency,
    NetValue: net,
    GrossValue: round2(gross),
    TaxValues: taxRateCode === null ? [] : [{ Code: taxRateCode, Value: tax }],
    Breakdown: { Items: [{ TaxRateCode: taxRateCode, NetValue: net, TaxValue: tax }] },
  };
}

/** Converts a value between currencies of {@link EUR_RATES}; unknown currencies give undefined. */
export function convertValue(value: number, from: string, to: string): number | undefined {
  const fromRate = EUR_RATES[from];
  const toRate = EUR_RATES[to];
  if (fromRate === undefined || toRate === undefined) return undefined;
  return round2((value / fromRate) * toRate);
}
