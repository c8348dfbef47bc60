import type { TaxEnvironment } from '../connector/records/index.ts';
import type { SimModel } from './model.ts';
import { DAY_MS, iso } from './sim-random.ts';

/** One taxation and one standard rate per taxation code the seeded environments use. */
export function seedTaxationsAndRates(model: SimModel): void {
  const environments = [...model.taxEnvironments.all()].map((entry) => entry.record);
  const codes = [...new Set(environments.flatMap((environment) => environment.TaxationCodes))];
  for (const [index, code] of codes.entries()) {
    model.taxations.push({ Code: code, Name: `${code} taxation` });
    model.taxRates.push({
      Code: `${code}-S`,
      TaxationCode: code,
      Strategy:
        index % 3 === 2
          ? { Discriminator: 'Flat', Value: 2 }
          : { Discriminator: 'Relative', Value: 0.1 + index / 100 },
    });
  }
}

/** The tax environments seeded, one valid since `start` less 900 days. */
export function taxEnvironments(start: number): TaxEnvironment[] {
  return [
    {
      Code: 'CZ',
      CountryCode: 'CZE',
      TaxationCodes: ['CZ-VAT'],
      ValidityStartUtc: '2024-01-01T00:00:00Z',
      ValidityEndUtc: null,
    },
    {
      Code: 'UK',
      CountryCode: 'GBR',
      TaxationCodes: ['UK-VAT'],
      ValidityStartUtc: null,
      ValidityEndUtc: null,
    },
    {
      Code: 'AT',
      CountryCode: 'AUT',
      TaxationCodes: ['AT-VAT', 'AT-CT'],
      ValidityStartUtc: null,
      ValidityEndUtc: null,
    },
    {
      Code: 'DE-2020',
      CountryCode: 'DEU',
      TaxationCodes: ['DE-VAT'],
      ValidityStartUtc: '2020-07-01T00:00:00Z',
      ValidityEndUtc: '2020-12-31T23:00:00Z',
    },
    {
      Code: 'DE',
      CountryCode: 'DEU',
      TaxationCodes: ['DE-VAT'],
      ValidityStartUtc: iso(start - 900 * DAY_MS),
      ValidityEndUtc: null,
    },
  ];
}
